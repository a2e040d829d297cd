import Foundation

/// Polls `condition` every few milliseconds until it holds or `timeout` passes; returns
/// whether it held. For conditions that become true asynchronously — never a bare sleep.
public func eventually(
    timeout: Duration = .seconds(10), pollEvery interval: Duration = .milliseconds(5),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try await condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: interval)
    }
}
