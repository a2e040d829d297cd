import DocSyncCore
import DocSyncPlatform
import Foundation
import GRDB
import Logging
import Synchronization

/// The embedded backend (`file:///path`): records, change history and tombstones in SQLite
/// (WAL, busy timeout, immediate write transactions), chunks in pack files (`PackStore`).
///
/// Several `LocalBackend` instances — in one process or in several — may use the same
/// directory at once: SQLite serializes their writes and every commit signals the others
/// through `CommitSignal`, which feeds `changeNotifications()`. Tombstones older than
/// `Options.tombstoneRetention` are compacted when the backend opens and hourly while it is
/// written to; a change token from before a compaction gets `changeTokenExpired`.
///
/// Deleted records (Recently Deleted) and the versions saves replaced are kept for the
/// settings' `deletedRetention`, then removed when the backend opens and before each
/// collection. Garbage collection (`collectGarbage`) runs on the settings' schedule while
/// the backend is alive, off the caller's thread, one collector per store at a time
/// across processes.
///
/// Layout of the directory: `records.sqlite` (+ `-wal`, `-shm`; records, history, kept
/// versions, the chunk index and counters), `packs/` (chunk data), `commit-signal`,
/// `collect.lock` (the collectors' lock), `store.toml` (`StoreSettingsFile`).
public final class LocalBackend: StorageBackend {
    public struct Options: Sendable {
        /// How long tombstones are kept: a device offline for longer refetches everything.
        public var tombstoneRetention: TimeInterval
        /// How long a write waits for another process's write to finish before `zoneBusy`.
        public var busyTimeout: TimeInterval
        /// The store's settings; `nil`: those of `store.toml` in its directory (defaults for
        /// what it does not set). docsync-server gives its own to every user's store.
        public var settings: StoreSettings?
        /// Whether this backend collects on the settings' schedule while it is alive (a
        /// daemon's does; docsync-server runs one schedule for all its users instead).
        public var collectsOnSchedule: Bool

        public init(tombstoneRetention: TimeInterval = StoreRetention.defaultTombstoneRetention, busyTimeout: TimeInterval = 30,
                    settings: StoreSettings? = nil, collectsOnSchedule: Bool = true) {
            self.tombstoneRetention = tombstoneRetention
            self.busyTimeout = busyTimeout
            self.settings = settings
            self.collectsOnSchedule = collectsOnSchedule
        }
    }

    public let directory: URL
    public let options: Options
    /// The settings in force: `options.settings`, or the directory's `store.toml`.
    public let settings: StoreSettings
    let pool: DatabasePool
    let chunks: PackStore
    let commitSignal: CommitSignal
    let logger = Logger(label: "docsync.storage.local")
    private let notifier = Mutex(NotifierState())
    private let lastCompaction = Mutex(Date())
    private let schedule = Mutex<Task<Void, Never>?>(nil)

    /// Opens (creating if needed) the backend a `file://` URL names.
    /// Throws `invalidArguments` for any other kind of URL.
    public convenience init(url: URL, options: Options = Options()) throws(SyncError) {
        guard url.isFileURL, !url.path.isEmpty else {
            throw SyncError(.invalidArguments, "\(url.absoluteString) is not a file:// URL; the embedded backend needs file:///path/to/dir")
        }
        try self.init(directory: url, options: options)
    }

    /// Opens (creating if needed) the backend stored in `directory`. Throws
    /// `invalidArguments` when its `store.toml` is not valid (naming the line and the key).
    public init(directory: URL, options: Options = Options()) throws(SyncError) {
        self.directory = directory.standardizedFileURL
        self.options = options
        if let given = options.settings { settings = given } else { settings = try StoreSettingsFile.read(in: self.directory) }
        let databasePath = self.directory.appendingPathComponent("records.sqlite").path
        let isNew = !FileManager.default.fileExists(atPath: databasePath)
        do {
            try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
            var configuration = Configuration()
            configuration.busyMode = .timeout(options.busyTimeout)
            configuration.label = "docsync.local-backend"
            configuration.prepareDatabase { db in
                if !db.configuration.readonly {
                    try db.execute(sql: WriteAheadLog.bulkFriendlyCheckpoints)
                    try db.execute(sql: WriteAheadLog.writerCacheSize)
                }
            }
            pool = try LocalBackend.openAndMigrate(databasePath, configuration)
        } catch {
            throw LocalBackend.map(error, "open the backend at \(directory.path)")
        }
        chunks = try PackStore(root: self.directory.appendingPathComponent("packs"), pool: pool)
        commitSignal = try CommitSignal(path: self.directory.appendingPathComponent("commit-signal").path)
        if isNew, options.settings == nil, !StoreSettingsFile.createTemplate(in: self.directory) {
            logger.warning("could not write the store's settings template; the defaults apply", metadata: ["store": "\(self.directory.path)"])
        }
        try compactTombstones(olderThan: options.tombstoneRetention)
        try pruneExpiredVersions()
        if options.collectsOnSchedule { schedule.withLock { $0 = startCollectionSchedule() } }
    }

    /// Opens the database and applies the migrations. Both are idempotent, but two processes
    /// opening a new directory at once may race on the first ones (switching the new file to
    /// WAL answers "busy" at once, without waiting): the loser waits a little and tries again,
    /// for about five seconds, and finds the work done.
    private static func openAndMigrate(_ path: String, _ configuration: Configuration) throws -> DatabasePool {
        var attempt = 0
        while true {
            do {
                let pool = try DatabasePool(path: path, configuration: configuration)
                try LocalBackendSchema.migrator.migrateRefusingNewer(pool, what: "the backend database \(path)")
                return pool
            } catch let error as SyncError {
                throw error  // a refusal: trying again changes nothing
            } catch {
                attempt += 1
                if attempt >= 12 { throw error }
                Thread.sleep(forTimeInterval: 0.05 * Double(attempt))
            }
        }
    }

    // MARK: Zones

    public func createZone(_ zone: ZoneID) async throws(SyncError) {
        let now = storeNow()
        let outcome = try await transact("create zone \(zone)") { rows in try StoreAlgorithm.createZone(zone, now: now, in: &rows) }
        if outcome.announces { committed() }
    }

    public func deleteZone(_ zone: ZoneID) async throws(SyncError) {
        let now = storeNow()
        let outcome = try await transact("delete zone \(zone)") { rows in try StoreAlgorithm.deleteZone(zone, now: now, in: &rows) }
        if outcome.announces { committed() }
    }

    public func listZones() async throws(SyncError) -> [ZoneID] {
        try await query("list zones") { rows in try StoreAlgorithm.listZones(rows) }
    }

    // MARK: Records

    public func modifyRecords(_ batch: RecordBatch) async throws(SyncError) -> ModifyResult {
        let failed = try StoreAlgorithm.admit(batch)
        let now = storeNow()
        let outcome = try await transact("modify \(batch.itemCount) records in \(batch.zone)") { rows in
            try StoreAlgorithm.modify(batch, failedBefore: failed, now: now, in: &rows)
        }
        if outcome.announces { committed() }
        compactIfDue()
        return outcome.value
    }

    public func fetchChanges(in zone: ZoneID, since token: ChangeToken?, limit: Int) async throws(SyncError) -> ChangeSet {
        try await query("fetch changes of \(zone)") { rows in try StoreAlgorithm.changes(in: zone, since: token, limit: limit, rows) }
    }

    public func fetchRecords(_ ids: [RecordID]) async throws(SyncError) -> [RecordID: DocSyncCore.Record] {
        try await query("fetch \(ids.count) records") { rows in try StoreAlgorithm.records(ids, rows) }
    }

    // MARK: Chunks

    public func missingChunks(_ digests: [SHA256Digest]) async throws(SyncError) -> Set<SHA256Digest> {
        let chunks = self.chunks
        return try await offload { () throws(SyncError) in try chunks.missing(digests) }
    }

    public func uploadChunk(_ digest: SHA256Digest, bytes: Data) async throws(SyncError) {
        let chunks = self.chunks
        try await offload { () throws(SyncError) in try chunks.store([ChunkUpload(digest: digest, bytes: bytes)], byteLimit: nil) }
    }

    public func uploadChunks(_ chunks: [ChunkUpload]) async throws(SyncError) {
        try await uploadChunks(chunks, byteLimit: nil)
    }

    /// Stores chunks as `uploadChunks(_:)` does; with `byteLimit`, a batch whose new chunks
    /// would take the store's chunks past that many bytes is refused whole with
    /// `quotaExceeded` carrying the usage and the limit (docsync-server's per-user quotas).
    public func uploadChunks(_ chunks: [ChunkUpload], byteLimit: Int64?) async throws(SyncError) {
        let directory = self.chunks
        try await offload { () throws(SyncError) in try directory.store(chunks, byteLimit: byteLimit) }
    }

    /// Starts a batch of chunks stored as they arrive (a streamed upload): see `ChunkBatchWriter`.
    public func chunkBatch() -> ChunkBatchWriter { ChunkBatchWriter(packs: chunks) }

    /// Where a stored chunk's bytes lie (a pack file, offset and length), for repair tools
    /// and tests; `nil` when the chunk is not stored.
    public func chunkLocation(_ digest: SHA256Digest) throws(SyncError) -> (path: String, offset: Int64, length: Int)? {
        try chunks.location(of: digest)
    }

    /// The first chunks of `digests`, in order (a repeated digest is repeated), verified: as many as fit `budget` when each
    /// counts `cost(length)`, and at least one; a sealed one with its body digest. One lookup
    /// finds them all, off the caller's thread, so no more is read than is returned. Throws
    /// `chunkNotFound` for the first digest of that prefix that is not stored, and
    /// `chunkCorrupt` as `downloadChunks` does.
    public func downloadChunks(prefixOf digests: [SHA256Digest], budget: Int,
                               cost: @escaping @Sendable (Int) -> Int) async throws(SyncError) -> [ChunkUpload] {
        try await readChunks(prefixOf: digests, budget: budget, cost: cost, plainUnverified: false)
    }

    /// As `downloadChunks(prefixOf:budget:cost:)`, a plain chunk's bytes not hashed again
    /// (marked not verified): they were verified when stored, and the client they go to
    /// verifies each one it receives. A sealed one is still checked against its body digest.
    public func chunksForClient(prefixOf digests: [SHA256Digest], budget: Int,
                                cost: @escaping @Sendable (Int) -> Int) async throws(SyncError) -> [ChunkUpload] {
        try await readChunks(prefixOf: digests, budget: budget, cost: cost, plainUnverified: true)
    }

    private func readChunks(prefixOf digests: [SHA256Digest], budget: Int, cost: @escaping @Sendable (Int) -> Int,
                            plainUnverified: Bool) async throws(SyncError) -> [ChunkUpload] {
        let chunks = self.chunks
        return try await offload { () throws(SyncError) in
            let (order, prefix) = try ChunkBudget.prefix(of: digests, places: try chunks.places(of: digests), length: \.length,
                                                        budget: budget, cost: cost)
            let found = try chunks.read(prefix, plainUnverified: plainUnverified)
            return order.map { digest in
                let bodyDigest = prefix[digest]!.bodyDigest
                return ChunkUpload(digest: digest, bytes: found[digest]!, isVerified: !plainUnverified || bodyDigest != nil, bodyDigest: bodyDigest)
            }
        }
    }

    public func downloadChunk(_ digest: SHA256Digest) async throws(SyncError) -> Data {
        let chunks = self.chunks
        return try await offload { () throws(SyncError) in try chunks.load(digest) }
    }

    public func downloadChunks(_ digests: [SHA256Digest]) async throws(SyncError) -> [SHA256Digest: Data] {
        let chunks = self.chunks
        return try await offload { () throws(SyncError) in try chunks.load(digests) }
    }

    /// Frees the database connections' page caches (the writer's holds up to 32 MB after a
    /// sync) once the accesses under way are over; readers reopen when next needed. Never
    /// waits: async accesses hold readers across suspensions, and blocking a cooperative
    /// thread until they end could starve them (two engines sharing this backend did).
    public func releaseMemory() {
        pool.releaseMemoryEventually()
    }

    /// The zones in use (not redirects) and records counted, the chunks from the store's
    /// counters (kept as chunks are stored and collected): chunks of live records, of
    /// Recently Deleted, of replaced versions, and those not collected yet.
    public func usage() async throws(SyncError) -> StorageUsage {
        try await read("read usage") { db in
            let counters = try StoreCounters.read(db)
            return StorageUsage(zoneCount: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM zone WHERE movedTo IS NULL") ?? 0,
                                recordCount: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM record") ?? 0,
                                chunkCount: Int(counters.chunkCount), chunkBytes: counters.chunkBytes)
        }
    }

    /// The bytes of every chunk stored, from the counters (no count of records): what a
    /// quota is checked against.
    public func storedChunkBytes() async throws(SyncError) -> Int64 {
        try await read("read usage") { db in try StoreCounters.read(db).chunkBytes }
    }

    // MARK: Compaction

    /// Deletes tombstones older than `age` seconds and expires the tokens that could have
    /// missed them. Returns how many tombstones were removed.
    @discardableResult
    public func compactTombstones(olderThan age: TimeInterval) throws(SyncError) -> Int {
        let cutoff = Date().timeIntervalSince1970 - age
        do {
            return try pool.writeWithoutTransaction { db in
                var removed = 0
                try db.inTransaction(.immediate) {
                    let rows = try Row.fetchAll(db, sql: "SELECT zone, MAX(seq) AS through, COUNT(*) AS n FROM tombstone WHERE deletedAt <= ? GROUP BY zone", arguments: [cutoff])
                    for row in rows {
                        let zone: String = row["zone"]
                        try db.execute(sql: "DELETE FROM tombstone WHERE zone = ? AND deletedAt <= ?", arguments: [zone, cutoff])
                        try db.execute(sql: "UPDATE zone SET compactedThroughSeq = MAX(compactedThroughSeq, ?) WHERE name = ?",
                                       arguments: [row["through"] as Int64, zone])
                        removed += row["n"] as Int
                    }
                    return .commit
                }
                return removed
            }
        } catch {
            throw LocalBackend.map(error, "compact tombstones")
        }
    }

    private func compactIfDue() {
        let due = lastCompaction.withLock { last in
            guard Date().timeIntervalSince(last) > 3600 else { return false }
            last = Date()
            return true
        }
        if due {
            do { try compactTombstones(olderThan: options.tombstoneRetention) } catch {
                logger.warning("tombstone compaction failed", metadata: ["error": "\(error)"])
            }
        }
    }

    // MARK: Notifications

    public func changeNotifications() -> AsyncStream<ChangeNotification> {
        let (stream, continuation) = AsyncStream.makeStream(of: ChangeNotification.self, bufferingPolicy: .bufferingNewest(64))
        let id: UInt64
        do {
            id = try notifier.withLock { (state) throws(SyncError) -> UInt64 in
                if state.watcher == nil {
                    state.watcher = try commitSignal.watch { [weak self] in self?.deliverNotifications() }
                    state.snapshot = (try? zoneStates()) ?? [:]
                }
                let id = state.nextID
                state.nextID += 1
                state.subscribers[id] = continuation
                return id
            }
        } catch {
            logger.error("cannot watch for commits; changes will be seen only by periodic fetches", metadata: ["error": "\(error)"])
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.notifier.withLock { state in _ = state.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Delivers a notification of `zone` to this process's streams, with no commit behind it.
    func announceToSubscribers(_ zone: ZoneID) {
        notifier.withLock { state in
            for continuation in state.subscribers.values { continuation.yield(ChangeNotification(zones: [zone])) }
        }
    }

    /// Called on the commit watcher's queue after any process committed.
    private func deliverNotifications() {
        guard let current = try? zoneStates() else { return }
        notifier.withLock { state in
            var changed = Set<ZoneID>()
            for name in Set(current.keys).union(state.snapshot.keys) where current[name] != state.snapshot[name] {
                changed.insert(ZoneID(name))
            }
            state.snapshot = current
            guard !changed.isEmpty else { return }
            for continuation in state.subscribers.values { continuation.yield(ChangeNotification(zones: changed)) }
        }
    }

    private func zoneStates() throws -> [String: String] {
        try pool.read { db in
            var states: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT name, incarnation, lastSeq FROM zone") {
                states[row["name"]] = "\(row["incarnation"] as String):\(row["lastSeq"] as Int64)"
            }
            return states
        }
    }

    func committed() {
        if !commitSignal.signal() {
            logger.warning("could not signal a commit; other clients will see it at their next fetch",
                           metadata: ["path": "\(commitSignal.path)"])
        }
    }

    deinit {
        schedule.withLock { $0?.cancel() }
        notifier.withLock { state in
            state.watcher?.cancel()
            for continuation in state.subscribers.values { continuation.finish() }
        }
    }
}

struct NotifierState {
    var subscribers: [UInt64: AsyncStream<ChangeNotification>.Continuation] = [:]
    var nextID: UInt64 = 0
    var watcher: CommitWatcher?
    /// Each zone's "incarnation:lastSeq" at the last delivery.
    var snapshot: [String: String] = [:]
}
