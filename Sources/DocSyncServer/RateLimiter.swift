import Foundation
import Synchronization

/// Per-token rate limiting: one `TokenBucket` per token hash.
///
/// The default is generous (an initial sync of 10,000 files, a few hundred batched
/// requests, is never throttled); a throttled request is answered 429 with `Retry-After`.
public final class RateLimiter: Sendable {
    /// Requests per second each token may make on average.
    public let ratePerSecond: Double
    /// Requests a token may make at once after a quiet spell.
    public let burst: Double
    private let buckets = Mutex<[String: TokenBucket]>([:])
    private let clock: @Sendable () -> Double

    /// The default rate: 200 requests a second, bursts of 2,000.
    public static let defaultRatePerSecond = 200.0

    /// `burst` defaults to `defaultBurst(ratePerSecond:)`.
    public init(ratePerSecond: Double, burst: Double? = nil, clock: @escaping @Sendable () -> Double = RateLimiter.monotonicSeconds) {
        self.ratePerSecond = ratePerSecond
        self.burst = max(1, burst ?? Self.defaultBurst(ratePerSecond: ratePerSecond))
        self.clock = clock
    }

    /// The burst of a rate when none is given: ten seconds' worth of requests, at least 1.
    public static func defaultBurst(ratePerSecond: Double) -> Double { max(1, ratePerSecond * 10) }

    /// `nil` when the request of `key` may go ahead, else the seconds to wait.
    public func admit(_ key: String) -> Double? {
        let now = clock()
        return buckets.withLock { buckets in
            if buckets.count > 100_000 { buckets = buckets.filter { $0.value.updatedAt > now - 3600 } }
            var bucket = buckets[key] ?? TokenBucket(capacity: burst, ratePerSecond: ratePerSecond, now: now)
            let wait = bucket.take(now: now)
            buckets[key] = bucket
            return wait
        }
    }

    @Sendable public static func monotonicSeconds() -> Double {
        let now = ContinuousClock.now - start
        let (seconds, attoseconds) = now.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    private static let start = ContinuousClock.now
}
