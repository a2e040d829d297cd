/// A token bucket: `capacity` requests at once, refilled at `ratePerSecond`.
///
/// Pure: time is passed in (seconds on any monotonic clock), so tests drive it exactly.
public struct TokenBucket: Sendable, Hashable {
    public let capacity: Double
    public let ratePerSecond: Double
    public private(set) var tokens: Double
    public private(set) var updatedAt: Double

    /// A full bucket at time `now`.
    public init(capacity: Double, ratePerSecond: Double, now: Double) {
        precondition(capacity >= 1 && ratePerSecond > 0, "a bucket needs a capacity of at least 1 and a positive rate")
        self.capacity = capacity
        self.ratePerSecond = ratePerSecond
        self.tokens = capacity
        self.updatedAt = now
    }

    /// Takes one token at `now` and returns `nil`, or, when the bucket is empty, takes none
    /// and returns the seconds until one is available.
    public mutating func take(now: Double) -> Double? {
        refill(now: now)
        if tokens >= 1 {
            tokens -= 1
            return nil
        }
        return (1 - tokens) / ratePerSecond
    }

    private mutating func refill(now: Double) {
        guard now > updatedAt else { return }
        tokens = min(capacity, tokens + (now - updatedAt) * ratePerSecond)
        updatedAt = now
    }
}
