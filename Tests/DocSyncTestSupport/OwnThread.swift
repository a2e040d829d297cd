import Foundation

/// Runs blocking `body` on a new thread (not the cooperative pool, which the tests share)
/// and returns its result.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
