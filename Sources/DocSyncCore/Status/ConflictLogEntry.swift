/// How one conflict ended (SPEC §4), as the conflict log keeps it.
///
/// The raw values are what `docs-status conflicts --log --json` prints and what the index
/// stores; they never change meaning (new outcomes are new cases).
public enum ConflictOutcome: String, Sendable, Hashable, Codable, CaseIterable {
    /// Both sides' edits merged line-wise into one file (both inputs kept in the version store).
    case merged
    /// Both contents kept: the server's at the path, this device's in a conflict copy beside it.
    case keptBoth = "kept-both"
    /// Settled by the folder's policy (`local-wins`, or `newest-wins` with this side newer):
    /// this device's content stayed; the other went to the version store.
    case localWon = "local-won"
    /// Settled by the folder's policy (`remote-wins`, or `newest-wins` with the other side
    /// newer): the other device's content stayed; this device's went to the version store.
    case remoteWon = "remote-won"
    /// A person kept this device's side (`docs-status resolve --keep local`).
    case resolvedLocal = "resolved-local"
    /// A person kept the other device's side (`docs-status resolve --keep remote`).
    case resolvedRemote = "resolved-remote"
    /// A person kept both (`docs-status resolve --keep both`): the copy is an ordinary file now.
    case resolvedBoth = "resolved-both"
}

/// One conflict a device's engine met, and how it ended: a row of the folder's conflict log
/// (`docs-status conflicts --log`).
///
/// Callers may rely on: `path` and `copyPath` are relative to the folder's root,
/// `/`-separated; `localDevice` is the device that logged it; `remoteDevice` is the other
/// side's device when it is known (`nil` otherwise); `time` is when the outcome was reached.
public struct ConflictLogEntry: Sendable, Hashable, Codable {
    /// When the conflict was met (and settled, for the automatic outcomes) or resolved.
    public var time: Timestamp
    /// The folder's id (its zone name).
    public var folder: String
    /// The item in conflict: the original's path.
    public var path: String
    /// The conflict copy's path, when there is (or was) one.
    public var copyPath: String?
    /// This device: the one that logged the entry.
    public var localDevice: String
    /// The other side's device, when known.
    public var remoteDevice: String?
    public var outcome: ConflictOutcome
    /// A short note for a person ("kept this device's version; the other is version 12").
    public var detail: String?

    public init(
        time: Timestamp, folder: String, path: String, copyPath: String? = nil, localDevice: String,
        remoteDevice: String? = nil, outcome: ConflictOutcome, detail: String? = nil
    ) {
        self.time = time
        self.folder = folder
        self.path = path
        self.copyPath = copyPath
        self.localDevice = localDevice
        self.remoteDevice = remoteDevice
        self.outcome = outcome
        self.detail = detail
    }
}
