import DocSyncCore

/// Seeded randomness for tests, so test data is the same on every run.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var generator: SplitMix64

    public init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    public mutating func next() -> UInt64 { generator.next() }

    /// `count` random bytes.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var index = 0
        while index < count {
            var word = next()
            for _ in 0..<8 where index < count {
                out[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
        return out
    }
}
