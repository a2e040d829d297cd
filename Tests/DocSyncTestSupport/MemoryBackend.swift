import DocSyncCore
import DocSyncStorage
import Foundation
import Synchronization

/// A `StorageBackend` that keeps everything in memory, for seeded simulations: no disk, no
/// wall clock, no randomness of its own, so the same calls give the same answers, byte for
/// byte, on every run.
///
/// It behaves as the embedded `LocalBackend` does (and passes the same conformance suite):
/// zones with incarnations, one store-wide sequence for change tags and token positions,
/// tombstones, pages of at most `StorageLimits.maximumPageSize` items, atomic batches with
/// per-item errors, chunks verified on upload and on download, Recently Deleted and replaced
/// versions kept for `settings.deletedRetention`, garbage collection with
/// `settings.collectionGrace`, and change notifications.
///
/// Time is read from the injected `clock` only (a `SimulatedClock`, or the wall clock when a
/// test compares with it); the clock must not call the backend. Incarnations come from a
/// generator seeded with `seed`: give each simulated server its own seed, so that its tokens
/// are refused by the others. Change tags are positions in the sequence.
///
/// Upkeep happens on the clock, at the start of the next write once it is due (never in the
/// background): tombstones older than `tombstoneRetention` are compacted at most hourly, and
/// a collection runs every `settings.collectionInterval` (the first five minutes after
/// creation; 0 turns the schedule off) and after a purge that removed something.
///
/// A simulation reaches past the protocol with `corruptChunk`, `compactTombstones`,
/// `collectGarbage`, `forgetEverything` and `chunkByteLimit`. Every method is safe to call
/// from any thread; a call waits at most for another call's work on the store, never for
/// time to pass, and never suspends in between.
public final class MemoryBackend: StorageBackend {
    /// How long deleted records and replaced versions are kept, and how garbage is collected.
    public let settings: StoreSettings
    /// How long tombstones are kept: a device that did not fetch for longer gets
    /// `changeTokenExpired` and fetches everything.
    public let tombstoneRetention: TimeInterval
    let clock: @Sendable () -> Timestamp
    let state: Mutex<MemoryBackendState>
    let notifier = Mutex(MemoryBackendNotifier())

    /// An empty store whose schedules start at the clock's present time. `seed` names its
    /// zones' incarnations.
    public init(settings: StoreSettings = StoreSettings(), tombstoneRetention: TimeInterval = 90 * 86_400, seed: UInt64 = 0,
                clock: @escaping @Sendable () -> Timestamp) {
        self.settings = settings
        self.tombstoneRetention = tombstoneRetention
        self.clock = clock
        var initial = MemoryBackendState(incarnations: SplitMix64(seed: seed))
        initial.startSchedules(at: clock(), settings)
        state = Mutex(initial)
    }

    // MARK: Zones

    public func createZone(_ zone: ZoneID) async throws(SyncError) {
        let created = write { state, _ in
            guard state.zones[zone.name] == nil else { return false }
            let seq = state.nextSeq()
            state.zones[zone.name] = MemoryZone(id: zone, incarnation: state.newIncarnation(), createdAt: seq)
            return true
        }
        if created { announce([zone]) }
    }

    public func deleteZone(_ zone: ZoneID) async throws(SyncError) {
        try write { (state, _) throws(SyncError) in
            guard state.zones.removeValue(forKey: zone.name) != nil else { throw SyncError.zoneNotFound(zone) }
        }
        announce([zone])
    }

    public func listZones() async throws(SyncError) -> [ZoneID] {
        read { state, _ in state.zones.values.map(\.id).sorted() }
    }

    // MARK: Records

    public func modifyRecords(_ batch: RecordBatch) async throws(SyncError) -> ModifyResult {
        guard batch.itemCount <= RecordBatch.maximumItems else {
            throw SyncError(.limitExceeded, "batch of \(batch.itemCount) items exceeds \(RecordBatch.maximumItems); split it and resend")
        }
        let failed = MemoryBackendState.itemProblems(of: batch)
        let (result, changed) = try write { (state, now) throws(SyncError) in try state.modify(batch, failed: failed, now: now) }
        if changed { announce([batch.zone]) }
        return result
    }

    public func fetchChanges(in zone: ZoneID, since token: ChangeToken?, limit: Int) async throws(SyncError) -> ChangeSet {
        let since = try token.map { token throws(SyncError) in try MemoryBackendChangeToken(token) }
        let pageSize = max(1, min(limit, StorageLimits.maximumPageSize))
        return try read { (state, _) throws(SyncError) in
            let stored = try state.requireZone(zone)
            var after: Int64 = 0
            if let since {
                guard since.zone == zone.name, since.incarnation == stored.incarnation else {
                    throw SyncError(.changeTokenExpired, "change token is for \(since.zone == zone.name ? "an earlier incarnation of" : "another zone than") \(zone); fetch from the beginning")
                }
                guard since.seq >= stored.compactedThrough else {
                    throw SyncError(.changeTokenExpired, "change token of \(zone) predates compacted deletions; fetch from the beginning and reconcile")
                }
                after = since.seq
            }
            let page = stored.changes(after: after, pageSize: pageSize)
            return ChangeSet(changed: page.changed, deleted: page.deleted,
                             token: MemoryBackendChangeToken(zone: zone.name, incarnation: stored.incarnation, seq: page.position).token,
                             moreComing: page.moreComing)
        }
    }

    public func fetchRecords(_ ids: [RecordID]) async throws(SyncError) -> [RecordID: Record] {
        guard let zone = ids.first?.zone else { return [:] }
        guard ids.allSatisfy({ $0.zone == zone }) else {
            throw SyncError(.invalidArguments, "fetchRecords takes ids of one zone at a time; split the ids by zone")
        }
        return try read { (state, _) throws(SyncError) in
            let stored = try state.requireZone(zone)
            var found: [RecordID: Record] = [:]
            for id in ids { found[id] = stored.records[id.recordName]?.record }
            return found
        }
    }

    /// The zones and live records counted, and every stored chunk: those of live records,
    /// of Recently Deleted, of replaced versions, and those not collected yet.
    public func usage() async throws(SyncError) -> StorageUsage {
        read { state, _ in
            StorageUsage(zoneCount: state.zones.count, recordCount: state.zones.values.reduce(0) { $0 + $1.records.count },
                         chunkCount: state.chunks.count, chunkBytes: state.chunkBytes)
        }
    }

    // MARK: What a simulation does to the store

    /// The store-wide sequence: it grows with every change a fetch could see (a save, a
    /// deletion, a zone made), so a simulation can tell its devices that something changed
    /// without a notification stream.
    public var sequence: Int64 { state.withLock { $0.sequence } }

    /// Makes this a store that was replaced by an empty one: every zone with its records,
    /// history and Recently Deleted, and every chunk, is gone, and the sequence starts over
    /// (change tags will repeat those of the old store, as a new `LocalBackend`'s do). Zones
    /// created afterwards have new incarnations, so old tokens are refused. Subscribers stay
    /// subscribed and are told about every zone that went; `chunkByteLimit` stays.
    public func forgetEverything() {
        let forgotten = state.withLock { state in
            let zones = Set(state.zones.values.map(\.id))
            state = MemoryBackendState(chunkByteLimit: state.chunkByteLimit, incarnations: state.incarnations)
            state.startSchedules(at: clock(), settings)
            return zones
        }
        announce(forgotten)
    }

    /// The most bytes of chunks the store accepts (`nil`, the default: no limit). An upload
    /// whose new chunks would take the store past it is refused whole with `quotaExceeded`
    /// carrying the usage and the limit, as docsync-server's per-user quota is; purging and
    /// collecting bring the store back under it.
    public var chunkByteLimit: Int64? {
        get { state.withLock { $0.chunkByteLimit } }
        set { state.withLock { $0.chunkByteLimit = newValue } }
    }

    // MARK: Access

    /// Runs `body` on the store under the lock, with the time now, after the upkeep that is due.
    func write<T: Sendable, E: Error>(_ body: (inout MemoryBackendState, Timestamp) throws(E) -> T) throws(E) -> T {
        try state.withLock { (state: inout MemoryBackendState) throws(E) -> T in
            let now = clock()
            state.performDueUpkeep(at: now, settings: settings, tombstoneRetention: tombstoneRetention)
            return try body(&state, now)
        }
    }

    /// Runs `body` on the store under the lock, with the time now; changes nothing.
    func read<T: Sendable, E: Error>(_ body: (MemoryBackendState, Timestamp) throws(E) -> T) throws(E) -> T {
        try state.withLock { (state: inout MemoryBackendState) throws(E) -> T in try body(state, clock()) }
    }

    deinit { finishNotifications() }
}
