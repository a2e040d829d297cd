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
    /// What the store keeps how long (from `settings` and `tombstoneRetention`).
    var retention: StoreRetention { StoreRetention(settings: settings, tombstoneRetention: tombstoneRetention) }
    let state: Mutex<MemoryBackendState>
    let notifier = Mutex(MemoryBackendNotifier())

    /// An empty store whose schedules start at the clock's present time. `seed` names its
    /// zones' incarnations.
    public init(settings: StoreSettings = StoreSettings(), tombstoneRetention: TimeInterval = StoreRetention.defaultTombstoneRetention, seed: UInt64 = 0,
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
        let outcome = try transact { state, now in try StoreAlgorithm.createZone(zone, now: now, in: &state) }
        if outcome.announces { announce([zone]) }
    }

    public func deleteZone(_ zone: ZoneID) async throws(SyncError) {
        let outcome = try transact { state, now in try StoreAlgorithm.deleteZone(zone, now: now, in: &state) }
        if outcome.announces { announce([zone]) }
    }

    public func listZones() async throws(SyncError) -> [ZoneID] {
        try query { state, _ in try StoreAlgorithm.listZones(state) }
    }

    /// Moves as the other stores do: the zone becomes a redirect, subscribers hear of it, and
    /// what only it referenced is collected at once (`MemoryBackendState.collect(_:at:settings:)`).
    public func moveZone(_ zone: ZoneID, to target: ZoneID) async throws(SyncError) {
        try StoreAlgorithm.admitMove(zone, to: target)
        let outcome = try transact { state, now in try StoreAlgorithm.moveZone(zone, to: target, now: now, in: &state) }
        guard outcome.wrote else { return }
        announce([zone])
        let settings = self.settings
        write { state, now in _ = state.collect(outcome.value, at: now, settings: settings) }
    }

    // MARK: Records

    public func modifyRecords(_ batch: RecordBatch) async throws(SyncError) -> ModifyResult {
        let failed = try StoreAlgorithm.admit(batch)
        let outcome = try transact { state, now in try StoreAlgorithm.modify(batch, failedBefore: failed, now: now, in: &state) }
        if outcome.announces { announce([batch.zone]) }
        return outcome.value
    }

    public func fetchChanges(in zone: ZoneID, since token: ChangeToken?, limit: Int) async throws(SyncError) -> ChangeSet {
        try query { state, _ in try StoreAlgorithm.changes(in: zone, since: token, limit: limit, state) }
    }

    public func fetchRecords(_ ids: [RecordID]) async throws(SyncError) -> [RecordID: Record] {
        try query { state, _ in try StoreAlgorithm.records(ids, state) }
    }

    /// The zones in use (not redirects) and live records counted, and every stored chunk:
    /// those of live records, of Recently Deleted, of replaced versions, and those not
    /// collected yet.
    public func usage() async throws(SyncError) -> StorageUsage {
        read { state, _ in
            StorageUsage(zoneCount: state.zones.values.filter { $0.movedTo == nil }.count, recordCount: state.zones.values.reduce(0) { $0 + $1.records.count },
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

    /// Runs an operation of the store algorithm under the lock, with the time now, after the
    /// upkeep that is due, as one transaction: an operation that throws or writes nothing
    /// leaves the store as it was (the sequence values it reserved are given back).
    func transact<T: Sendable>(_ body: (inout MemoryBackendState, Timestamp) throws -> StoreOutcome<T>) throws(SyncError) -> StoreOutcome<T> {
        try write { (state, now) throws(SyncError) in
            let sequence = state.sequence
            do {
                let outcome = try body(&state, now)
                if !outcome.wrote { state.sequence = sequence }
                return outcome
            } catch {
                state.sequence = sequence
                throw MemoryBackend.syncError(error)
            }
        }
    }

    /// Runs a reading operation of the store algorithm under the lock, with the time now.
    func query<T: Sendable>(_ body: (MemoryBackendState, Timestamp) throws -> T) throws(SyncError) -> T {
        try read { (state, now) throws(SyncError) in
            do { return try body(state, now) } catch { throw MemoryBackend.syncError(error) }
        }
    }

    /// The algorithm throws `SyncError` only; anything else is a fault of this store.
    static func syncError(_ error: any Error) -> SyncError {
        error as? SyncError ?? SyncError(.internalError, "memory store: \(error)")
    }

    /// Runs `body` on the store under the lock, with the time now; changes nothing.
    func read<T: Sendable, E: Error>(_ body: (MemoryBackendState, Timestamp) throws(E) -> T) throws(E) -> T {
        try state.withLock { (state: inout MemoryBackendState) throws(E) -> T in try body(state, clock()) }
    }

    deinit { finishNotifications() }
}
