import Synchronization

/// A lock held across suspension points: `acquire` waits (without blocking a thread) until
/// the holder calls `release`; waiters get it in the order they came.
final class AsyncLock: Sendable {
    private let state = Mutex<(held: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let acquired = state.withLock { state in
                guard state.held else { state.held = true; return true }
                state.waiters.append(continuation)
                return false
            }
            if acquired { continuation.resume() }
        }
    }

    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiters.isEmpty else { state.held = false; return nil }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
