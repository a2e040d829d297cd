import CFuse3
import Synchronization

/// A FUSE request answered by whichever comes first: the work done on another task, or the
/// deadline (`EIO`, SPEC §14's `fetch_timeout`). The kernel gets exactly one reply; a late
/// result is dropped.
final class ReplyOnce: Sendable {
    private let request: PendingRequest
    private let answered = Atomic<Bool>(false)

    init(_ request: fuse_req_t?) { self.request = PendingRequest(raw: request) }

    /// Runs `reply` with the request if nothing answered it yet; returns whether it ran.
    @discardableResult
    func answer(_ reply: (fuse_req_t?) -> Void) -> Bool {
        guard !answered.exchange(true, ordering: .acquiringAndReleasing) else { return false }
        reply(request.raw)
        return true
    }

    func fail(_ code: Int32) { answer { fuse_reply_err($0, code) } }

    /// Fails the request with `code` after `timeout` unless it was answered by then.
    func failAfter(_ timeout: Duration, with code: Int32 = EIO, onTimeout: @escaping @Sendable () -> Void = {}) {
        Task { [self] in
            try? await Task.sleep(for: timeout)
            if answer({ fuse_reply_err($0, code) }) { onTimeout() }
        }
    }
}
