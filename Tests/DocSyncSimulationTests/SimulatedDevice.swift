import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Logging
import Synchronization

/// One device of a simulation: its folder on a `MemoryFileSystem`, its own
/// `FaultInjectingBackend` in front of the shared store (so a partition cuts it alone), and
/// an engine on a persisted index that a kill -9 throws away and a restart opens again.
final class SimulatedDevice {
    /// Backend faults this device meets now.
    enum BackendFault: String, Hashable, CaseIterable {
        case partition, rateLimit, serverErrors, droppedResponses
    }

    let index: Int
    let name: String
    let fileSystem: MemoryFileSystem
    let backend: FaultInjectingBackend
    let configuration: EngineConfiguration
    let environment: EngineEnvironment
    private(set) var engine: FolderEngine
    /// The state of the engine's loop, which the simulation passes to each of its turns.
    var loop: EngineLoop
    /// What its last turn said.
    var outcome: TurnOutcome = .more
    var faults: Set<BackendFault> = []
    var diskFull = false
    /// The person removed the folder's root and has not put it back yet.
    var rootRemoved = false
    /// A confirmation of held deletions is queued and not yet answered.
    let confirming = Synchronized(false)
    private var planGeneration: UInt64 = 0
    private let seed: UInt64

    /// The folder's root on `fileSystem`.
    var root: String { configuration.root.path }

    init(index: Int, seed: UInt64, store: any StorageBackend, clock: SimulatedClock, monotonic: @escaping @Sendable () -> ContinuousClock.Instant,
         stateRoot: URL) throws {
        self.index = index
        self.seed = seed
        name = "dev\(index)"
        fileSystem = MemoryFileSystem(clock: clock.reading)
        backend = FaultInjectingBackend(wrapping: store, clock: clock)
        configuration = EngineConfiguration(
            zone: Simulation.zone, root: URL(fileURLWithPath: "/\(name)/Docs"), stateDirectory: stateRoot.appendingPathComponent(name),
            device: name, deleteBrake: DeleteBrake(percent: 50, minimum: 100),
            retryPolicy: RetryPolicy(initialDelay: .milliseconds(500), maximumDelay: .seconds(60), multiplier: 2))
        let names = Mutex(UInt64(0))
        let jitter = Mutex(SplitMix64(seed: seed &* 31 &+ UInt64(index)))
        let deviceIndex = UInt64(index)
        environment = EngineEnvironment(
            now: monotonic, wallNow: clock.reading,
            newRecordName: {
                let count = names.withLock { value -> UInt64 in value += 1; return value }
                return Self.hex(deviceIndex &+ 1) + Self.hex(count)
            },
            random: { jitter.withLock { $0.next() } }, serial: true)
        try fileSystem.makeDirectories("/\(name)/Docs")
        try fileSystem.flushDirectory("/")
        try fileSystem.flushDirectory("/\(name)")
        engine = try Self.makeEngine(configuration, backend, fileSystem, environment)
        loop = engine.makeLoop()
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    private static func makeEngine(_ configuration: EngineConfiguration, _ backend: any StorageBackend, _ fileSystem: MemoryFileSystem,
                                   _ environment: EngineEnvironment) throws -> FolderEngine {
        // Logs are kept per simulation: its devices' state directories share a parent.
        let run = configuration.stateDirectory.deletingLastPathComponent().path
        let logger = Logger(label: "sim.\(configuration.device)", factory: { _ in
            EngineLogCapture.level == nil ? SwiftLogNoOpLogHandler() as any LogHandler : EngineLogCapture(device: configuration.device, run: run)
        })
        return try FolderEngine(configuration: configuration, backend: backend, logger: logger, fileSystem: fileSystem, environment: environment)
    }

    /// kill -9: the engine is dropped between two turns (its index transactions are
    /// committed or not, as SQLite guarantees); with `powerCut` the file system also loses
    /// what was not made durable. A new engine starts on the same index and folder.
    func restart(powerCut: Bool) throws {
        if powerCut { fileSystem.crash() }
        engine = try Self.makeEngine(configuration, backend, fileSystem, environment)
        loop = engine.makeLoop()
        outcome = .more
        confirming.update { $0 = false }
    }

    /// Puts the backend faults of `faults` in place, with a fresh seeded generator.
    func applyFaults() {
        planGeneration += 1
        var rules: [FaultRule] = []
        var rateLimit: FaultPlan.RateLimit?
        if faults.contains(.partition) {
            rules.append(FaultRule([], .fromCall(1), .fail(SyncError(.networkFailure, "injected: partitioned"))))
        }
        if faults.contains(.serverErrors) {
            rules.append(FaultRule([], .fraction(0.2), .fail(SyncError(.serviceUnavailable, "injected: 503"))))
        }
        if faults.contains(.droppedResponses) {
            rules.append(FaultRule([.modifyRecords, .uploadChunk], .fraction(0.3), .dropResponse(SyncError(.networkFailure, "injected: response lost"))))
        }
        if faults.contains(.rateLimit) {
            rateLimit = FaultPlan.RateLimit(calls: 4, per: .seconds(5), retryAfter: 2)
        }
        backend.setPlan(FaultPlan(rules: rules, rateLimit: rateLimit, seed: seed &* 1_000_003 &+ UInt64(index) &* 7919 &+ planGeneration))
    }

    /// The disk is full (`ENOSPC` on creating and writing files, for the engine and the
    /// person alike) or not.
    func setDiskFull(_ full: Bool) {
        diskFull = full
        guard full else { return fileSystem.setFailing(nil) }
        let failing: Set<MemoryFileSystem.Call> = [.createFile, .append, .copyFile, .makeDirectory]
        fileSystem.setFailing { call, _ in failing.contains(call) ? ENOSPC : nil }
    }
}
