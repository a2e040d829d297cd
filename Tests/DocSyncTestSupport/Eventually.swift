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

/// Runs `body`, then `close` — whether `body` returned or threw (async code has no `defer`
/// that awaits): how a case releases its fixture.
public func closing<T>(_ close: () async -> Void, after body: () async throws -> T) async throws -> T {
    do {
        let value = try await body()
        await close()
        return value
    } catch {
        await close()
        throw error
    }
}
