/// Exponential backoff with "equal jitter" for retrying transient failures (SPEC §5).
///
/// Pure: the randomness is passed in, so a seeded generator gives the same delays every run.
/// The delay before retry `n` is `d = min(initialDelay × multiplier^(n-1), maximumDelay)`,
/// then drawn uniformly from `[d/2, d]`, and never less than the backend's `retryAfter`.
public struct RetryPolicy: Sendable, Hashable {
    /// The un-jittered delay before the first retry. Default 500 ms.
    public var initialDelay: Duration
    /// The un-jittered delay never grows beyond this. Default 300 s.
    public var maximumDelay: Duration
    /// How much the un-jittered delay grows per attempt. Default 2; values below 1 count as 1.
    public var multiplier: Double

    public init(initialDelay: Duration = .milliseconds(500), maximumDelay: Duration = .seconds(300), multiplier: Double = 2) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.multiplier = multiplier
    }

    /// 500 ms, doubling, at most 300 s.
    public static let standard = RetryPolicy()

    /// The un-jittered delay before retry number `attempt` (1 = first retry; lower counts as 1):
    /// `min(initialDelay × multiplier^(attempt-1), maximumDelay)`, never negative.
    public func baseDelay(attempt: Int) -> Duration {
        let initial = max(0, Self.seconds(initialDelay))
        let maximum = max(0, Self.seconds(maximumDelay))
        let factor = multiplier.isNaN ? 1 : max(1, multiplier)
        let grown = initial == 0 ? 0 : initial * power(factor, max(1, attempt) - 1)
        let capped = min(grown, maximum)
        return Self.duration(seconds: capped)
    }

    /// Delay before retry number `attempt` (1 = first retry): exponential, capped at
    /// maximumDelay, with "equal jitter" — half of `baseDelay(attempt:)` fixed, half drawn
    /// uniformly from `random` — so the result `r` satisfies `d/2 <= r <= d` for `d = baseDelay`.
    /// Never less than `retryAfter` when the backend gave one (retryAfter may exceed
    /// maximumDelay and is honoured anyway); a negative `retryAfter` is ignored.
    public func delay(attempt: Int, retryAfter: Duration?, using random: inout some RandomNumberGenerator) -> Duration {
        let base = Self.nanoseconds(baseDelay(attempt: attempt))
        let half = base - base / 2  // rounded up, so the result is never below d/2
        let jittered = half + Int64.random(in: 0...(base - half), using: &random)
        let delay = Duration.nanoseconds(jittered)
        if let retryAfter, retryAfter > delay { return retryAfter }
        return delay
    }

    /// `delay(attempt:retryAfter:using:)` with the `retryAfter` (seconds) an error carries.
    public func delay(attempt: Int, after error: SyncError, using random: inout some RandomNumberGenerator) -> Duration {
        delay(attempt: attempt, retryAfter: error.retryAfter.flatMap(Self.retryAfterDuration), using: &random)
    }

    /// A backend's `retryAfter` in seconds as a `Duration`; nil for a negative, NaN or
    /// infinite value. Values beyond a year are clamped to a year.
    public static func retryAfterDuration(seconds: Double) -> Duration? {
        guard seconds.isFinite, seconds >= 0 else { return nil }
        return duration(seconds: min(seconds, 365 * 86_400))
    }

    // MARK: - Private

    /// The largest delay this type computes with (about 292 years), so nanoseconds fit in Int64.
    private static let largestSeconds = Double(Int64.max / 1_000_000_000)

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    private static func duration(seconds: Double) -> Duration {
        .nanoseconds(Int64((min(seconds, largestSeconds) * 1e9).rounded(.down)))
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

/// `base` to the power `exponent` (≥ 0) by repeated squaring; stops early at infinity.
private func power(_ base: Double, _ exponent: Int) -> Double {
    var result = 1.0
    var factor = base
    var remaining = exponent
    while remaining > 0 {
        if remaining & 1 == 1 { result *= factor }
        factor *= factor
        remaining >>= 1
        if result.isInfinite { return .infinity }
    }
    return result
}
