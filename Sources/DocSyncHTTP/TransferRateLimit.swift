import Foundation
import Synchronization

/// A bandwidth limit for one direction of chunk transfers (SPEC §15, `upload_limit` and
/// `download_limit`): each transfer books its bytes on a timeline at `bytesPerSecond` and
/// waits for its turn, so that over any stretch longer than a batch the bytes moved stay
/// within the rate. `0` means no limit; the rate may change at any time (`docs-status
/// limit`), taking effect from the next transfer.
///
/// The process's two limits (`upload`, `download`) are shared by every `HTTPBackend` in it:
/// the account's and each share's.
public final class TransferRateLimit: Sendable {
    public static let upload = TransferRateLimit()
    public static let download = TransferRateLimit()

    private struct State {
        var bytesPerSecond: Int64 = 0
        /// When the bytes booked so far have all gone at the rate.
        var freeAt = ContinuousClock.now
    }

    private let state = Mutex(State())

    public init(bytesPerSecond: Int64 = 0) { state.withLock { $0.bytesPerSecond = max(0, bytesPerSecond) } }

    /// Bytes per second, `0` for none.
    public var bytesPerSecond: Int64 {
        get { state.withLock { $0.bytesPerSecond } }
        set { state.withLock { $0.bytesPerSecond = max(0, newValue); $0.freeAt = .now } }
    }

    /// The largest batch worth sending at once: at most a second of the rate (and at least
    /// 64 KiB), so that pacing stays even; `maximum` when there is no limit.
    public func batchSize(atMost maximum: Int) -> Int {
        let rate = bytesPerSecond
        return rate == 0 ? maximum : min(maximum, max(65_536, Int(min(rate, Int64(Int.max)))))
    }

    /// Waits until `bytes` may go (before an upload) or have gone (after a download) at the rate.
    public func pace(_ bytes: Int) async {
        guard let start = book(bytes, at: .now), start > .now else { return }
        try? await Task.sleep(until: start, clock: .continuous)
    }

    /// Books `bytes` on the timeline at `now`: when they may start (`nil`: no limit). The
    /// bookings follow one another at the rate, whenever their callers wake.
    func book(_ bytes: Int, at now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        state.withLock { state in
            guard state.bytesPerSecond > 0 else { return nil }
            let start = max(now, state.freeAt)
            state.freeAt = start + .seconds(Double(bytes) / Double(state.bytesPerSecond))
            return start
        }
    }
}
