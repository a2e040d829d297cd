import DocSyncCore

/// A call `docs-status` makes to the daemon over the control socket.
///
/// The wire form is one JSON object per line (see `ControlFraming`); new calls are added
/// as new cases, so an older daemon answers an unknown call with a `.failure`.
public enum ControlRequest: Codable, Sendable, Hashable {
    /// The overview: account, backend, every folder's state and counts.
    case status
    /// Answer once every folder is settled (idle, nothing pending, the watcher quiet), or
    /// with `.failure` after `timeoutSeconds`.
    case wait(timeoutSeconds: Double)
    /// Per-item status (`.items`) of absolute `paths`: a directory lists its direct children,
    /// a file itself. No paths: the top level of every folder.
    case list(paths: [String])
    /// The items matching an SPEC §6 predicate (`.items`); with `watch`, a stream of
    /// non-final `.changes` (the first holds the initial result) until the client hangs up.
    /// A bad predicate answers `.failure` with code `badPredicate`.
    case query(predicate: String, watch: Bool)
    /// Items with a conflict copy beside them, and the copies (`.items`).
    case conflicts
    /// Items and folders with a problem (`.problems`).
    case errors
    /// Fetch these placeholders (absolute paths), or every placeholder matching `predicate` (`.actions`).
    case download(paths: [String], predicate: String?)
    /// Turn these uploaded files back into placeholders (`.actions`); refused, with a
    /// reason, for anything not uploaded.
    case evict(paths: [String], predicate: String?)
    /// Keep these documents (absolute paths; a folder: every document beneath it) or every
    /// item matching `predicate` local on an on-demand folder: downloaded now, never
    /// evicted by `cache_max_size` (`.actions`).
    case pin(paths: [String], predicate: String?)
    /// No longer keep these documents local (`.actions`): the cache limit may evict them.
    case unpin(paths: [String], predicate: String?)
    /// Fetch and send now; answers `.status` once the round is done, `.failure` after the timeout.
    case sync(timeoutSeconds: Double)
    /// The kept versions of the item at an absolute path, newest first (`.versions`).
    case versions(path: String)
    /// Brings a kept version back (the newest when `version` is nil) as a new local change (`.actions`).
    case restore(path: String, version: Int64?)
    /// What held folders and the mass-delete brake hold back (SPEC §4a), for the folder at
    /// the absolute path `folder` or every folder (`.held`); with `choice`, the person's
    /// choice over it (`.actions`: each item's outcome).
    case deletions(folder: String?, choice: HeldChoice?)
    /// The backend's Recently Deleted items the selection picks, newest deletion first
    /// (`.deleted`); with `purge`, Recently Deleted is emptied of them (`.actions`). Paths
    /// are absolute: a folder's root takes the whole folder.
    case deleted(selection: DeletedSelection, purge: Bool)
    /// Brings the Recently Deleted items the selection picks back on every device (`.actions`).
    case recover(selection: DeletedSelection)
    /// Settles conflicts (SPEC §4) keeping `keep` (`.actions`, one outcome per conflict):
    /// those the absolute `paths` name (an original, or one of its conflict copies), and with
    /// `all` every conflict of every folder, or those `predicate` matches (originals or copies).
    case resolve(paths: [String], all: Bool, predicate: String?, keep: ConflictKeep)
    /// Every folder's conflict log, the entries logged at or after `since` (every one kept
    /// when nil), newest first (`.conflictLog`).
    case conflictLog(since: Timestamp?)
    /// The share of the folder at the absolute path `folder` (or with that id), with `change`
    /// applied first when given (`.share`): the owner's `docs-status share` (SPEC §11).
    case share(folder: String, change: ShareChange?)
    /// Every share offered to this account, of every status (`.shares`).
    case shares
    /// Declines the invitation to `share` (`.shares`, holding its entry after).
    case declineShare(share: ShareName)
    /// Leaves the share the folder at the absolute path `folder` (or with that id) is
    /// attached to, on every device of the account; this device detaches it, its files kept
    /// (`.shares`, holding the entry after).
    case leaveShare(folder: String)
    /// Accepts `share` for the account (when still an invitation) and attaches it on this
    /// device at the absolute path `folder`, which must be absent or empty (SPEC §11); kept
    /// across restarts. Answered with `shares` (the account's entry), `notFound` when no
    /// such share is offered, `badFolder` for a path that cannot take it.
    case acceptShare(share: ShareName, folder: String)

    // Key-value stores (SPEC §12; README "Key-value stores"): each call names its store
    // (`{"keyValueGet":{"store":"org.example.editor","key":"theme"}}`); a value is JSON
    // itself, not a string holding JSON. A store is made on this device when first named.

    /// The value of `key` (`.keyValue`, without `value` when the store holds no such key).
    case keyValueGet(store: KeyValueStoreID, key: KeyValueKey)
    /// Writes `value` to `key`: kept on this device at once, sent when the backend can be
    /// reached (`.keyValue`). Over a limit: `.failure` with code `quotaExceeded`, nothing
    /// changed; `null`: `invalidArguments`.
    case keyValueSet(store: KeyValueStoreID, key: KeyValueKey, value: JSONValue)
    /// Removes `key` (`.keyValue` without `value`); done too when the store has no such key.
    case keyValueRemove(store: KeyValueStoreID, key: KeyValueKey)
    /// Every key and value (`.keyValues`).
    case keyValueList(store: KeyValueStoreID)
    /// A stream: first a non-final `.keyValueWatching` (the sequence number it starts
    /// after), then one non-final `.keyValueChange` per change from elsewhere, until the
    /// client hangs up. With `since`, the kept changes after that number come first (`0`:
    /// every one kept, the last 1,000 across restarts).
    case keyValueWatch(store: KeyValueStoreID, since: Int64?)

    // The daemon's events (SPEC §15).

    /// The kept events after `since` (`nil`: the last 100; `0`: every one kept) as non-final
    /// `.event` responses — a `gap` event first when some after `since` are no longer kept —
    /// then, with `follow`, each new event as it comes until the client hangs up; the final
    /// answer is `.eventsEnd` with the last id sent.
    case events(since: Int64?, follow: Bool)

    /// Pauses `folder` (a folder's path or id; `nil`: every folder) for `seconds` (`nil`:
    /// until resumed), kept across restarts (`.status`).
    case pause(folder: String?, seconds: Double?)
    /// Resumes `folder` (`nil`: every folder) (`.status`).
    case resume(folder: String?)
    /// Sets the bandwidth limits given, in bytes per second (`0`: none), until docsyncd
    /// restarts; `.status` shows them.
    case limit(upload: Int64?, download: Int64?)
    /// A one-time address that signs a browser in to the status page (`.webSignIn`); the
    /// failure `pageOff` says why when the page is not served.
    case web

    // End-to-end encryption (SPEC §13; README "End-to-end encryption").

    /// The account's encryption, with `action` done first when given (`.encryption`).
    case encryption(action: EncryptionAction?)
    /// The account's devices (`.encryption` with `devices`), with `action` done first.
    case devices(action: DeviceAction?)
}

/// What `docs-status encryption` asks.
public enum EncryptionAction: Codable, Sendable, Hashable {
    /// Turns encryption on for the account (the answer holds the recovery key, once).
    case enable(folder: String?)
    /// Replaces the recovery key (the answer holds the new one, once).
    case newRecoveryKey
    /// Enters the recovery key on this device: it becomes trusted.
    case recover(recoveryKey: String)
}

/// What `docs-status devices` asks.
public enum DeviceAction: Codable, Sendable, Hashable {
    /// Approves the device named `name` once `fingerprint` is the code it shows.
    case approve(name: String, fingerprint: String)
    /// Removes the trusted device named `name`: the account's keys and every encrypted
    /// folder's epoch are new, so it decrypts nothing written from then on.
    case remove(name: String)
}

/// What a person chooses for what a folder holds back (`docs-status deletions`).
public enum HeldChoice: String, Codable, Sendable, Hashable {
    /// Send the held deletions to the other devices.
    case confirm
    /// Bring the held items back from the backend.
    case restore
}

/// The daemon's answer to one `ControlRequest`.
///
/// Most cases are *final* (`isFinal`): they end the answer to their request. Streaming
/// calls (a live `query --watch`, `kv watch`) send non-final cases before the final one;
/// see `ControlFraming` for how a connection carries them.
public enum ControlResponse: Codable, Sendable, Hashable {
    case status(DaemonStatus)
    /// The folders settled; the status at that moment.
    case settled(DaemonStatus)
    /// The call failed; `message` is for a person, `code` for scripts ("timeout", "unknownRequest", …).
    case failure(code: String, message: String)
    /// Items, sorted by folder then path (`list`, `query`, `conflicts`).
    case items(items: [ItemStatus])
    /// A live query's update (not final: more follow until the client hangs up).
    case changes(changes: ItemChanges)
    case problems(problems: [ProblemEntry])
    case actions(outcomes: [ActionOutcome])
    case versions(versions: [VersionEntry])
    /// What each folder holds back (`deletions`).
    case held(folders: [HeldFolder])
    /// Recently Deleted items (`deleted`).
    case deleted(entries: [DeletedEntry])
    /// Conflict log entries, newest first (`conflictLog`).
    case conflictLog(entries: [ConflictLogEntry])
    /// A folder's share and every participant it has had, sorted by name (`share`).
    case share(share: ShareName, participants: [ShareEntry])
    /// This account's entries in shares, sorted by share (`shares`, `declineShare`).
    case shares(entries: [ShareEntry])
    /// A key's value after the call (`keyValueGet`, `keyValueSet`, `keyValueRemove`);
    /// `value` absent: the store holds no such key.
    case keyValue(store: KeyValueStoreID, key: KeyValueKey, value: JSONValue?)
    /// Every key of a store with its value (`keyValueList`).
    case keyValues(store: KeyValueStoreID, values: [String: JSONValue])
    /// A `keyValueWatch` is on, after the change numbered `after` (not final); also its
    /// final answer, when the daemon stops watching (it is stopping).
    case keyValueWatching(store: KeyValueStoreID, after: Int64)
    /// One change from elsewhere (`keyValueWatch`; not final).
    case keyValueChange(change: KeyValueChange)
    /// The account's encryption (and its devices, for `devices`).
    case encryption(EncryptionStatus)
    /// One of the daemon's events (`events`; not final).
    case event(event: DaemonEvent)
    /// The end of an `events` answer: the id of the last event sent (or asked after).
    case eventsEnd(last: Int64)
    /// `web`: the one-time sign-in address, valid for ten minutes.
    case webSignIn(url: String)

    /// Whether this response ends the answer to its request. A client reads responses until
    /// it gets a final one; a live query's `.changes` and a `kv watch`'s `.keyValueChange`
    /// are not final, nor is `.keyValueWatching` while the watch goes on.
    public var isFinal: Bool {
        switch self {
        case .changes, .keyValueChange, .event: false
        case .keyValueWatching: false
        case .status, .settled, .failure, .items, .problems, .actions, .versions, .held, .deleted, .conflictLog, .share, .shares,
             .keyValue, .keyValues, .encryption, .eventsEnd, .webSignIn: true
        }
    }
}

extension ControlResponse {
    /// `failure` codes the server itself sends, besides the handler's own ("timeout", …).
    public enum FailureCode {
        /// The request line was not valid JSON, or not a valid request (wrong fields, too long).
        public static let badRequest = "badRequest"
        /// The request names a call this daemon does not know (it may be older than the client).
        public static let unknownRequest = "unknownRequest"
        /// A `wait` or `sync` ran out of time before the folders settled.
        public static let timeout = "timeout"
        /// A query's predicate does not parse; the message names the position and what was expected.
        public static let badPredicate = "badPredicate"
        /// A path given is not inside any synced folder, or names no item.
        public static let notFound = "notFound"
        /// A `wait` or `sync` cannot settle: a folder, or some of its deletions, are held
        /// for a person to decide (SPEC §4a; `docs-status deletions`).
        public static let held = "held"
        /// The call needs what this daemon's backend does not offer (sharing on a `file://` backend).
        public static let unsupported = "unsupported"
        /// The folder given cannot take what was asked (`accept` into a folder that is not
        /// empty, or inside or around a synced folder): nothing was done; choose another.
        public static let badFolder = "badFolder"
        /// A key-value write over a store's limits (SPEC §12), refused at once; nothing changed.
        public static let quotaExceeded = "quotaExceeded"
        /// A key-value call with a bad argument (a `null` value).
        public static let invalidArguments = "invalidArguments"
        /// The status page is not served: `web_listen = "off"`, or its port is taken.
        public static let pageOff = "pageOff"
    }
}

/// What answers control requests inside the daemon.
public protocol ControlHandler: Sendable {
    /// Answers one request. May take as long as the call needs (`wait`); the server runs
    /// each connection on its own task.
    func handle(_ request: ControlRequest) async -> ControlResponse

    /// Answers one request that may stream: `emit` sends a non-final response (a live
    /// query's `.changes`) before the final one. A streaming handler runs until its task is
    /// cancelled (the client hung up) and then returns whatever final response it likes.
    /// The default calls `handle(_:)`.
    func handle(_ request: ControlRequest, emit: @escaping @Sendable (ControlResponse) async -> Void) async -> ControlResponse
}

extension ControlHandler {
    public func handle(_ request: ControlRequest, emit: @escaping @Sendable (ControlResponse) async -> Void) async -> ControlResponse {
        await handle(request)
    }
}
