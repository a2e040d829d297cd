import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Synchronization

/// A seeded run of several engines against one in-memory store: operations of people and
/// faults of the world, interleaved with engine turns in a seeded order, all from the one
/// task that calls `run()`. The same seed gives the same `log`, line for line.
///
/// Time is a `SimulatedClock`: it moves 10 ms per turn, 1 ms per operation, and jumps to
/// the earliest deadline when every engine waits.
final class Simulation {
    static let zone = ZoneID("Docs")

    let seed: UInt64
    let operationCount: Int
    var random: SeededRandom
    let clock = SimulatedClock()
    let store: MemoryBackend
    var devices: [SimulatedDevice] = []
    /// What happened, one line each: operations, faults, turns and the store's sequence.
    private(set) var log: [String] = []
    var ledger = WriteLedger()
    let stateRoot: TemporaryDirectory
    var turns = 0
    /// Chunks the simulation damaged on purpose.
    var corrupted = Set<SHA256Digest>()

    init(seed: UInt64, operations: Int, deviceCount: Int = 3) throws {
        self.seed = seed
        operationCount = operations
        random = SeededRandom(seed: seed)
        let clock = self.clock
        store = MemoryBackend(seed: seed, clock: clock.reading)
        let base = Self.monotonicBase
        let start = clock.now
        let monotonic: @Sendable () -> ContinuousClock.Instant = {
            base + .nanoseconds(clock.now.nanosecondsSince1970 - start.nanosecondsSince1970)
        }
        stateRoot = try TemporaryDirectory("docsync-sim-\(seed)", preferMemory: true)
        for index in 0..<deviceCount {
            devices.append(try SimulatedDevice(index: index, seed: seed, store: store, clock: clock, monotonic: monotonic, stateRoot: stateRoot.url))
        }
    }

    /// Every simulation's monotonic time starts here (only differences are ever used).
    private static let monotonicBase = ContinuousClock.now

    var now: ContinuousClock.Instant { devices[0].environment.now() }

    func note(_ line: String) { log.append(line) }

    /// The operations, then healing, settling and confirming held deletions. Throws
    /// `SimulationFailure` when the engines do not settle.
    func run() async throws {
        try await store.createZone(Self.zone)
        for step in 0..<operationCount {
            clock.advance(by: .milliseconds(1))
            await perform(step)
        }
        try await healAndSettle()
    }

    // MARK: turns

    /// Whether `device` has something to do now.
    func isReady(_ device: SimulatedDevice) -> Bool {
        switch device.outcome {
        case .more: return true
        case .wait(let until): return until <= now || device.engine.hasInput
        }
    }

    /// Up to `count` turns of ready engines, chosen by the seed; when none is ready the clock
    /// jumps to the earliest deadline, but never further than `horizon` ahead.
    func runTurns(_ count: Int, horizon: Duration = .seconds(30)) async {
        let limit = now + horizon
        for _ in 0..<count {
            let ready = devices.filter(isReady)
            if ready.isEmpty {
                let deadlines = devices.compactMap { device -> ContinuousClock.Instant? in
                    if case .wait(let until) = device.outcome { return until } else { return nil }
                }
                guard let next = deadlines.min(), next <= limit else { return }
                clock.advance(by: next - now)
                continue
            }
            let device = ready[Int(random.next() % UInt64(ready.count))]
            await turn(device)
        }
    }

    func turn(_ device: SimulatedDevice) async {
        let before = store.sequence
        var loop = device.loop
        device.outcome = await device.engine.turn(&loop)
        device.loop = loop
        turns += 1
        let after = store.sequence
        let said = switch device.outcome {
        case .more: "more"
        case .wait(let until): "wait \((until - now).components.seconds)s"
        }
        log += EngineLogCapture.take(run: stateRoot.url.path)
        note("turn \(device.name) \(said) seq \(after)")
        if after != before {
            // The store's notification, delivered in order from this one task.
            for other in devices where other !== device { other.engine.noteRemoteChange() }
        }
        clock.advance(by: .milliseconds(10))
    }

    // MARK: healing

    /// Ends every fault, puts removed roots back, and runs turns until every engine is
    /// settled, confirming deletions any of them holds.
    func healAndSettle() async throws {
        note("heal")
        if !corrupted.isEmpty {
            // Damage at rest is not something an engine can repair today (a device that holds
            // the content does not know the store's copy went bad): the store's operator
            // restores the damaged chunks, and the chunk check covers them again.
            for digest in corrupted.sorted(by: { $0.hex < $1.hex }) { store.repairChunk(digest) }
            note("the store's operator restores \(corrupted.count) damaged chunk(s)")
            corrupted.removeAll()
        }
        for device in devices {
            device.faults = []
            device.applyFaults()
            device.setDiskFull(false)
            if device.rootRemoved { putRootBack(device) }
            device.engine.requestSync()
        }
        var quietRounds = 0
        for _ in 0..<60 {
            // A held folder or held deletions wait for a person: the person confirms them.
            for device in devices where device.engine.held != nil && !device.confirming.value {
                device.confirming.update { $0 = true }
                note("confirm held deletions on \(device.name)")
                let confirming = device.confirming
                device.engine.enqueue(.confirmDeletions) { _ in confirming.update { $0 = false } }
            }
            await runTurns(50, horizon: .seconds(600))
            if devices.contains(where: isReady) { quietRounds = 0; continue }
            if devices.allSatisfy({ $0.engine.isSettled }) {
                quietRounds += 1
                // Once more from the top: every device fetches and compares its whole folder.
                if quietRounds == 1 {
                    for device in devices { device.engine.requestSync() }
                    continue
                }
                return
            }
            // Nothing ready, not settled: let time pass (a backoff, the brake's quiet period).
            clock.advance(by: .seconds(5))
        }
        let states = devices.map { "\($0.name): \($0.engine.status().state) \($0.engine.status().message ?? "") held=\($0.engine.held != nil)" }
        throw SimulationFailure("the devices did not settle after healing: \(states.joined(separator: "; "))")
    }
}

/// Why a seed failed.
struct SimulationFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
