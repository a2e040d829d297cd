import DocSyncCore
import DocSyncStorage
import Foundation
import Synchronization

/// Wraps a backend and injects the faults of SPEC §5 according to a `FaultPlan`: chosen
/// errors on chosen calls (the Nth, from the Nth on, or a seeded fraction), latency, a
/// rate limit answered with `retryAfter`, and answers lost after the wrapped backend
/// applied the call. Notifications pass through untouched. For tests only.
///
/// On the wall clock by default (latency is slept, rate-limit windows are real time). Given a
/// `SimulatedClock` it is deterministic: windows are measured on that clock and latency
/// moves that clock forward instead of sleeping, so the same calls in the same order meet
/// the same faults on every run.
public final class FaultInjectingBackend: StorageBackend {
    public let inner: any StorageBackend
    private let state: Mutex<State>

    private struct State {
        var plan: FaultPlan
        var random: SeededRandom
        var ruleCounts: [Int]
        var calls: [BackendOperation: Int] = [:]
        var injected = 0
        /// When the rate limit's window began, as time since `started`.
        var windowStart: Duration = .zero
        var windowCalls = 0
    }

    /// `nil`: the wall clock.
    private let simulatedClock: SimulatedClock?
    private let started = ContinuousClock.now
    private let simulatedStart: Timestamp?

    public init(wrapping inner: any StorageBackend, plan: FaultPlan = .none, clock: SimulatedClock? = nil) {
        self.inner = inner
        self.simulatedClock = clock
        self.simulatedStart = clock?.now
        state = Mutex(State(plan: plan, random: SeededRandom(seed: plan.seed), ruleCounts: Array(repeating: 0, count: plan.rules.count)))
    }

    /// Time since this backend was made, on its clock.
    private func elapsed() -> Duration {
        guard let simulatedClock, let simulatedStart else { return ContinuousClock.now - started }
        return .nanoseconds(simulatedClock.now.nanosecondsSince1970 - simulatedStart.nanosecondsSince1970)
    }

    /// Replaces the plan (and restarts its counters).
    public func setPlan(_ plan: FaultPlan) {
        state.withLock { state in
            state.plan = plan
            state.random = SeededRandom(seed: plan.seed)
            state.ruleCounts = Array(repeating: 0, count: plan.rules.count)
            state.windowCalls = 0
            state.windowStart = elapsed()
        }
    }

    /// How many calls of each operation came in (faulted or not).
    public func callCount(_ operation: BackendOperation) -> Int { state.withLock { $0.calls[operation, default: 0] } }

    /// How many calls were faulted (failed, dropped or rate-limited).
    public var injectedFaults: Int { state.withLock { $0.injected } }

    /// Decides the fate of one call: an error to throw before it, one to throw after it, or neither.
    private func decide(_ operation: BackendOperation) -> (latency: Duration, before: SyncError?, after: SyncError?) {
        let now = elapsed()
        return state.withLock { state in
            state.calls[operation, default: 0] += 1
            if let limit = state.plan.rateLimit {
                if now - state.windowStart >= limit.window {
                    state.windowStart = now
                    state.windowCalls = 0
                }
                state.windowCalls += 1
                if state.windowCalls > limit.calls {
                    state.injected += 1
                    return (state.plan.latency, SyncError(.requestRateLimited, "injected: rate limited", retryAfter: limit.retryAfter), nil)
                }
            }
            for (index, rule) in state.plan.rules.enumerated() where rule.operations.isEmpty || rule.operations.contains(operation) {
                state.ruleCounts[index] += 1
                let count = state.ruleCounts[index]
                let fires: Bool
                switch rule.trigger {
                case .nthCall(let n): fires = count == n
                case .fromCall(let n): fires = count >= n
                case .fraction(let p): fires = Double(state.random.next() >> 11) / Double(1 << 53) < p
                }
                guard fires else { continue }
                state.injected += 1
                switch rule.effect {
                case .fail(let error): return (state.plan.latency, error, nil)
                case .dropResponse(let error): return (state.plan.latency, nil, error)
                }
            }
            return (state.plan.latency, nil, nil)
        }
    }

    private func intercept<T>(_ operation: BackendOperation, _ call: () async throws(SyncError) -> T) async throws(SyncError) -> T {
        let fate = decide(operation)
        if fate.latency > .zero {
            if let simulatedClock { simulatedClock.advance(by: fate.latency) } else { try? await Task.sleep(for: fate.latency) }
        }
        if let before = fate.before { throw before }
        let value = try await call()
        if let after = fate.after { throw after }
        return value
    }

    public func createZone(_ zone: ZoneID) async throws(SyncError) {
        try await intercept(.createZone) { () throws(SyncError) in try await inner.createZone(zone) }
    }

    public func deleteZone(_ zone: ZoneID) async throws(SyncError) {
        try await intercept(.deleteZone) { () throws(SyncError) in try await inner.deleteZone(zone) }
    }

    public func listZones() async throws(SyncError) -> [ZoneID] {
        try await intercept(.listZones) { () throws(SyncError) in try await inner.listZones() }
    }

    public func moveZone(_ zone: ZoneID, to target: ZoneID) async throws(SyncError) {
        try await intercept(.moveZone) { () throws(SyncError) in try await inner.moveZone(zone, to: target) }
    }

    public func modifyRecords(_ batch: RecordBatch) async throws(SyncError) -> ModifyResult {
        try await intercept(.modifyRecords) { () throws(SyncError) in try await inner.modifyRecords(batch) }
    }

    public func fetchChanges(in zone: ZoneID, since token: ChangeToken?, limit: Int) async throws(SyncError) -> ChangeSet {
        try await intercept(.fetchChanges) { () throws(SyncError) in try await inner.fetchChanges(in: zone, since: token, limit: limit) }
    }

    public func fetchRecords(_ ids: [RecordID]) async throws(SyncError) -> [RecordID: Record] {
        try await intercept(.fetchRecords) { () throws(SyncError) in try await inner.fetchRecords(ids) }
    }

    public func missingChunks(_ digests: [SHA256Digest]) async throws(SyncError) -> Set<SHA256Digest> {
        try await intercept(.missingChunks) { () throws(SyncError) in try await inner.missingChunks(digests) }
    }

    public func uploadChunk(_ digest: SHA256Digest, bytes: Data) async throws(SyncError) {
        try await intercept(.uploadChunk) { () throws(SyncError) in try await inner.uploadChunk(digest, bytes: bytes) }
    }

    /// One `uploadChunk` fate per chunk, as the protocol's default gives; each chunk goes on
    /// whole (a sealed one with its body digest, which `uploadChunk` has no room for).
    public func uploadChunks(_ chunks: [ChunkUpload]) async throws(SyncError) {
        for chunk in chunks {
            try await intercept(.uploadChunk) { () throws(SyncError) in try await inner.uploadChunks([chunk]) }
        }
    }

    public func downloadChunk(_ digest: SHA256Digest) async throws(SyncError) -> Data {
        try await intercept(.downloadChunk) { () throws(SyncError) in try await inner.downloadChunk(digest) }
    }

    public func listDeleted(in zone: ZoneID, since: Timestamp?) async throws(SyncError) -> [DeletedRecord] {
        try await intercept(.listDeleted) { () throws(SyncError) in try await inner.listDeleted(in: zone, since: since) }
    }

    public func recoverDeleted(_ recoveries: [DeletedRecordRecovery], in zone: ZoneID) async throws(SyncError) -> ModifyResult {
        try await intercept(.recoverDeleted) { () throws(SyncError) in try await inner.recoverDeleted(recoveries, in: zone) }
    }

    public func purgeDeleted(in zone: ZoneID, ids: [RecordID]?) async throws(SyncError) -> Int {
        try await intercept(.purgeDeleted) { () throws(SyncError) in try await inner.purgeDeleted(in: zone, ids: ids) }
    }

    public func changeNotifications() -> AsyncStream<ChangeNotification> { inner.changeNotifications() }

    public func usage() async throws(SyncError) -> StorageUsage {
        try await intercept(.usage) { () throws(SyncError) in try await inner.usage() }
    }

    public func releaseMemory() { inner.releaseMemory() }
}
