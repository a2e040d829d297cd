import DocSyncCore
import DocSyncStorage
import Foundation
import Logging

/// One key-value store of this device (SPEC §12): its state (`KeyValueState`, kept by a
/// `KeyValueDatabase`), the programs watching it, and its sync with the backend.
///
/// What a caller may rely on: a write returns once it is on disk here (or throws
/// `quotaExceeded` having changed nothing, or `internalError` when the disk refuses); it
/// is sent when the backend can be reached, retried with backoff, never dropped but by a
/// refusal of the server (`quotaViolationChange`), the server's values before the first
/// fetch (`initialSyncChange`) or another account (`accountChange`). Changes from
/// elsewhere reach every watcher in the order of their sequence numbers.
actor KeyValueStore {
    let id: KeyValueStoreID
    let backend: any StorageBackend
    let device: String
    let logger: Logger
    private let database: KeyValueDatabase
    private var state: KeyValueState
    private var watchers: [UUID: AsyncStream<KeyValueChange>.Continuation] = [:]
    private let kicks: AsyncStream<Void>.Continuation
    private let kickStream: AsyncStream<Void>
    /// How the store syncs now (SPEC §13): plain, sealed in the account's opaque zone, or
    /// not at all (why).
    private var mode: KeyValueSyncMode = .plain
    /// The sealed store is to look whether its plain zone still exists, and carry it.
    private var zoneCheckOwed = false
    /// The values were carried from the plain zone: it is moved once they are all sent.
    private var carrying = false
    /// The plain zone was moved by another device: the store waits for the daemon to say
    /// how it syncs now.
    private(set) var toldMoved = false

    /// Opens (or creates) the store's state under `directory`, for the daemon's `account`.
    init(id: KeyValueStoreID, directory: URL, account: String, backend: any StorageBackend, device: String,
         mode: KeyValueSyncMode = .plain, logger: Logger) throws {
        self.id = id
        self.mode = mode
        if case .sealed = mode { zoneCheckOwed = true }
        self.backend = backend
        self.device = device
        var logger = logger
        logger[metadataKey: "store"] = "\(id)"
        self.logger = logger
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        database = try KeyValueDatabase(store: id, url: directory.appendingPathComponent("\(id.name).sqlite"))
        state = try database.load()
        (kickStream, kicks) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        // The account is known from the configuration: a switch is found at once, offline too.
        let (next, announcements) = try state.applying(.signedIn(account: account))
        if next != state {
            let numbered = try database.save(from: state, to: next, announcing: announcements)
            if !numbered.isEmpty { logger.notice("the daemon runs with another account: the store's values give way to that account's", metadata: ["keys": "\(numbered.flatMap(\.keys).count)"]) }
            state = next
        }
        kicks.yield()
    }

    // MARK: what programs call

    /// The value of `key`, `nil` when the store has none.
    func value(of key: KeyValueKey) -> JSONValue? { state.value(of: key) }

    /// Every value, by key.
    func values() -> [KeyValueKey: JSONValue] { state.values }

    /// Writes `value` to `key` (`nil` removes it): on disk here at once, sent when the
    /// backend can be reached. Throws `quotaExceeded` (nothing changed) over a limit.
    func write(_ value: JSONValue?, to key: KeyValueKey) throws(SyncError) {
        try apply(.write(key, value, time: Timestamp(Date())))
        logger.debug(value == nil ? "removed locally" : "written locally", metadata: ["key": "\(key)"])
        kicks.yield()
    }

    /// A stream of the changes from elsewhere after `sequence` (the kept ones first), and
    /// the sequence number the stream starts after. `nil`: only changes from now on.
    func watch(after sequence: Int64?) throws(SyncError) -> (start: Int64, changes: AsyncStream<KeyValueChange>) {
        let (stream, continuation) = AsyncStream.makeStream(of: KeyValueChange.self)
        let start: Int64
        do {
            start = try sequence ?? database.latestAnnouncement()
            for change in try database.announcements(after: start) { continuation.yield(change) }
        } catch {
            throw SyncError(.internalError, "\(id): cannot read the store's changes: \(error)")
        }
        let token = UUID()
        watchers[token] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.stopWatching(token) } }
        return (start, stream)
    }

    private func stopWatching(_ token: UUID) { watchers[token] = nil }

    /// Asks for a fetch and a send now (a push named the store's zone, the backend came back).
    nonisolated func kick() { kicks.yield() }

    // MARK: the state

    /// Applies `event`, saves the state and announces what it says, in that order.
    private func apply(_ event: KeyValueEvent) throws(SyncError) {
        let (next, announcements) = try state.applying(event)
        guard next != state || !announcements.isEmpty else { return }
        let numbered: [KeyValueChange]
        do { numbered = try database.save(from: state, to: next, announcing: announcements) } catch {
            throw SyncError(.internalError, "\(id): cannot save the store's state here: \(error)")
        }
        state = next
        for change in numbered {
            logger.info("changed from elsewhere", metadata: ["reason": "\(change.reason.rawValue)", "keys": "\(change.keys)", "sequence": "\(change.sequence)"])
            for watcher in watchers.values { watcher.yield(change) }
        }
    }

    // MARK: encryption

    /// Syncs as `mode` from now on: a sealed store first looks whether the plain zone still
    /// exists (then this device carries the values into the sealed zone and moves the plain
    /// one; otherwise it follows the values there); a held one fetches and sends nothing.
    func sync(as mode: KeyValueSyncMode) {
        switch (self.mode, mode) {
        case (.plain, .plain), (.held, .held): break
        case let (.sealed(current), .sealed(next)) where current.sealing.zone == next.sealing.zone: break
        default:
            if case .sealed = mode { zoneCheckOwed = true }
            self.mode = mode
            toldMoved = false
            kicks.yield()
        }
    }

    /// Whether the store waits for its mode (held, or told its plain zone moved).
    var waitsForMode: Bool {
        if case .held = mode { return true }
        return toldMoved
    }

    // MARK: sync

    /// Fetches and sends whenever kicked, and again with backoff after a failure, until cancelled.
    func run() async {
        var backoff = KeyValueBackoff()
        var iterator = kickStream.makeAsyncIterator()
        while !Task.isCancelled {
            do {
                try await syncOnce()
                backoff.reset()
                guard await iterator.next() != nil else { return }
            } catch {
                let delay = backoff.next(after: error)
                logger.info("cannot sync the store now; trying again", metadata: ["error": "\(error)", "retryIn": "\(delay)"])
                try? await Task.sleep(for: delay)
            }
        }
    }

    /// One round: fetch everything new, then send every pending write. A held store does
    /// nothing; a sealed one carrying its plain zone's values moves that zone once they are
    /// all sent.
    func syncOnce() async throws(SyncError) {
        if case .held = mode { return }
        if toldMoved { return }
        if zoneCheckOwed, case let .sealed(encryption) = mode {
            let carry = try await KeyValueStore.plainZoneExists(id.zone, on: backend)
            try apply(.rezoned(zone: encryption.sealing.zone.name, carry: carry, time: Timestamp(Date())))
            (zoneCheckOwed, carrying) = (false, carry)
            logger.notice(carry ? "the account is encrypted: the store's values move into its sealed zone" : "the account is encrypted: the store follows its values into its sealed zone")
        }
        guard try await fetch() else { return }
        var rounds = 0
        while !state.outbox.isEmpty, rounds < 100 {
            rounds += 1
            try await send(Array(state.outbox.prefix(RecordBatch.maximumItems)))
        }
        if carrying, state.outbox.isEmpty, case let .sealed(encryption) = mode {
            do { try await backend.moveZone(id.zone, to: encryption.sealing.zone) } catch {
                guard (error.code == .zoneMoved && error.movedTo == encryption.sealing.zone) || error.code == .zoneNotFound else { throw error }
            }
            carrying = false
            logger.notice("the store's plain zone is a redirect now: its plaintext values are purged")
        }
    }

    /// Whether the plain zone `zone` still exists on `backend` (not moved, not missing).
    static func plainZoneExists(_ zone: ZoneID, on backend: any StorageBackend) async throws(SyncError) -> Bool {
        do {
            _ = try await backend.fetchChanges(in: zone, since: nil, limit: 1)
            return true
        } catch {
            guard error.code == .zoneNotFound || error.code == .zoneMoved else { throw error }
            return false
        }
    }

    /// The zone the store syncs with on the wire now.
    private var wireZone: ZoneID {
        if case let .sealed(encryption) = mode { return encryption.sealing.zone }
        return id.zone
    }

    /// The record name of `key` on the wire now.
    private func wireName(of key: KeyValueKey) -> String {
        if case let .sealed(encryption) = mode { return encryption.sealing.recordName(of: key) }
        return key.recordName
    }

    /// The keyring of a sealed store; `serviceUnavailable` while its keys are not here.
    private func keyring(_ encryption: KeyValueEncryption) throws(SyncError) -> FolderKeyring {
        guard let keyring = encryption.keys.keyring else {
            throw SyncError(.serviceUnavailable, "\(id): the encrypted store's keys are not available on this device")
        }
        return keyring
    }

    /// Fetches what changed; false when the store's plain zone turned out to be moved (the
    /// store then waits to be told how it syncs).
    private func fetch() async throws(SyncError) -> Bool {
        let zone = wireZone
        var token = state.token
        var complete = token == nil
        var changes: [KeyValueKey: JSONValue?] = [:]
        var sealed: SealedFetch?
        if case let .sealed(encryption) = mode {
            let known = state.values.keys.map { $0 } + state.pending.keys.map { $0 }
            sealed = SealedFetch(encryption: encryption, keyring: try keyring(encryption),
                                 names: Dictionary(known.map { (encryption.sealing.recordName(of: $0), $0) }) { first, _ in first })
        }
        while true {
            let page: ChangeSet
            do {
                page = try await backend.fetchChanges(in: zone, since: token, limit: 1_000)
            } catch where error.code == .zoneNotFound {
                // No such store on the server (yet, or any more): it holds no values.
                try apply(.fetched(changes: [:], complete: true, token: nil))
                return true
            } catch where error.code == .changeTokenExpired {
                logger.info("the store's change token expired; fetching every value again")
                (token, complete, changes) = (nil, true, [:])
                continue
            } catch where error.code == .zoneMoved {
                logger.notice("the store's zone was moved into the account's encrypted zone; waiting to follow it")
                toldMoved = true
                return false
            }
            if sealed != nil {
                try sealed!.read(page, into: &changes, known: try sealedVersions(page.changed.map(\.id.recordName)), logger: logger)
            } else {
                Self.readPlain(page, into: &changes, logger: logger)
            }
            token = page.token
            if !page.moreComing { break }
        }
        try noteSealedVersions(sealed?.seen ?? [:])
        try apply(.fetched(changes: changes, complete: complete, token: token))
        return true
    }

    /// A plain store's page: each Value and each removal, by key.
    private static func readPlain(_ page: ChangeSet, into changes: inout [KeyValueKey: JSONValue?], logger: Logger) {
        for record in page.changed {
            guard let key = record.keyValueKey, let value = record.jsonValue else {
                logger.warning("a record of the store is no value; skipped", metadata: ["record": "\(record.id)"])
                continue
            }
            changes[key] = .some(value)
        }
        for deleted in page.deleted {
            if let key = KeyValueKey(recordName: deleted.recordName) { changes[key] = .some(nil) }
        }
    }

    /// A sealed store's fetch under way: the record names of the keys known (learned from
    /// what opens), and the version each record was seen at.
    private struct SealedFetch {
        let encryption: KeyValueEncryption
        let keyring: FolderKeyring
        var names: [String: KeyValueKey]
        var seen: [String: UInt64] = [:]

        /// Opens each record of `page` (refusing, with a warning, one that does not open or
        /// is older than `known` or what this fetch saw) and reads each removal of a key
        /// whose record name is known.
        mutating func read(_ page: ChangeSet, into changes: inout [KeyValueKey: JSONValue?], known: [String: UInt64], logger: Logger) {
            for record in page.changed {
                let name = record.id.recordName
                do throws(EncryptionError) {
                    let opened = try encryption.sealing.open(record, with: keyring)
                    let floor = max(known[name] ?? 0, seen[name] ?? 0)
                    guard opened.version >= floor else {
                        throw EncryptionError(.rolledBack, "version \(opened.version) is older than version \(floor) seen before")
                    }
                    seen[name] = opened.version
                    names[name] = opened.key
                    changes[opened.key] = .some(opened.value)
                } catch {
                    logger.warning("a record of the encrypted store was refused; the value here stays", metadata: ["record": "\(name)", "error": "\(error)"])
                }
            }
            for deleted in page.deleted {
                if let key = names[deleted.recordName] { changes[key] = .some(nil) }
            }
        }
    }

    private func sealedVersions(_ names: [String]) throws(SyncError) -> [String: UInt64] {
        do { return try database.sealedVersions(names) } catch {
            throw SyncError(.internalError, "\(id): cannot read the store's sealed versions here: \(error)")
        }
    }

    private func noteSealedVersions(_ versions: [String: UInt64]) throws(SyncError) {
        guard !versions.isEmpty else { return }
        do { try database.noteSealedVersions(versions) } catch {
            throw SyncError(.internalError, "\(id): cannot keep the store's sealed versions here: \(error)")
        }
    }

    private func send(_ writes: [(key: KeyValueKey, write: KeyValueState.Pending)]) async throws(SyncError) {
        let zone = wireZone
        var batch = RecordBatch(zone: zone)
        var versions: [String: UInt64] = [:]
        var sealing: (KeyValueEncryption, FolderEpochKeys)?
        if case let .sealed(encryption) = mode {
            sealing = (encryption, try keyring(encryption).current)
            do { versions = try database.nextSealedVersions(writes.filter { $0.write.value != nil }.map { encryption.sealing.recordName(of: $0.key) }) } catch {
                throw SyncError(.internalError, "\(id): cannot keep the store's sealed versions here: \(error)")
            }
        }
        for (key, write) in writes {
            let name = wireName(of: key)
            if let value = write.value {
                if let (encryption, keys) = sealing {
                    batch.saves.append(encryption.sealing.seal(value, for: key, modified: write.modified, device: device, version: versions[name] ?? 1, with: keys))
                } else {
                    batch.saves.append(Record.value(value, for: key, in: id, modified: write.modified, device: device))
                }
            } else {
                batch.deletions.append(RecordDeletion(id: RecordID(zone: zone, recordName: name), device: device))
            }
        }
        let result: ModifyResult
        do {
            result = try await backend.modifyRecords(batch)
        } catch where error.code == .zoneNotFound {
            try await backend.createZone(zone)
            logger.info("made the store's zone on the backend")
            result = try await backend.modifyRecords(batch)
        } catch where error.code == .zoneMoved {
            logger.notice("the store's zone was moved into the account's encrypted zone; waiting to follow it")
            toldMoved = true
            return
        }
        var saved: [KeyValueSentWrite] = [], refused: [KeyValueSentWrite] = []
        var transient: SyncError?
        for (key, write) in writes {
            let recordID = RecordID(zone: zone, recordName: wireName(of: key))
            let sent = KeyValueSentWrite(key: key, sequence: write.sequence, value: write.value)
            if result.saved[recordID] != nil || result.deleted.contains(recordID) {
                saved.append(sent)
            } else if let error = result.failed[recordID] {
                if error.isTransient {
                    transient = error
                } else {
                    logger.warning("the server refused a write; the key shows the server's value again", metadata: ["key": "\(key)", "error": "\(error)"])
                    refused.append(sent)
                }
            } else {
                transient = SyncError(.internalError, "the server did not answer for \(key)")
            }
        }
        try apply(.sent(saved: saved, refused: refused))
        if let transient { throw transient }
    }
}

/// How long a store waits before trying again: 0.5 s doubling to 5 s (one small fetch is
/// cheap, and a backend back should be used soon), with jitter, and at
/// least what a rate limit asks.
struct KeyValueBackoff {
    private var failures = 0

    mutating func reset() { failures = 0 }

    mutating func next(after error: any Error) -> Duration {
        failures += 1
        let base = min(5.0, 0.5 * pow(2.0, Double(min(failures - 1, 10))))
        var seconds = base * Double.random(in: 0.75...1.25)
        if let error = error as? SyncError, let retryAfter = error.retryAfter { seconds = max(seconds, retryAfter) }
        return .milliseconds(Int64(seconds * 1000))
    }
}
