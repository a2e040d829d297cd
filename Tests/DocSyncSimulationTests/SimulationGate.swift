import Foundation

/// Lets a few simulations run at once. Swift Testing starts every case of a parameterized
/// test together, and each simulation holds three engines' open indexes until it ends: a
/// soak of thousands of seeds ran out of file descriptors. A few at a time keep both cores
/// busy all the same.
actor SimulationGate {
    static let shared = SimulationGate(limit: max(2, 2 * ProcessInfo.processInfo.activeProcessorCount))

    private let limit: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { self.limit = limit }

    /// Runs `body` once fewer than `limit` others run.
    func run<T: Sendable>(_ body: @Sendable () async -> T) async -> T {
        if running < limit {
            running += 1
        } else {
            await withCheckedContinuation { waiting.append($0) }  // the slot is handed over by `leave`
        }
        let result = await body()
        leave()
        return result
    }

    private func leave() {
        if waiting.isEmpty { running -= 1 } else { waiting.removeFirst().resume() }
    }
}
