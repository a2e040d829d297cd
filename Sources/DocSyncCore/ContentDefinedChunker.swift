/// Finds content-defined chunk boundaries with a FastCDC-style gear hash and normalized
/// chunking (Xia et al., USENIX ATC 2016).
///
/// Deterministic: the same bytes give the same boundaries on every machine and release, so
/// the gear table and the masks below must never change. A boundary depends only on the 64
/// bytes before it and on the distance from the chunk's start, so inserting or deleting a
/// few bytes moves the boundaries of the chunk holding the edit and, at worst, of the one
/// after it; every later boundary stays where it was, shifted by the edit.
public struct ContentDefinedChunker: Sendable {
    public let parameters: ChunkerParameters
    /// Stricter mask used before the average size: makes chunks shorter than average rare.
    let smallMask: UInt64
    /// Looser mask used after the average size: makes chunks longer than average rare.
    let largeMask: UInt64

    public init(_ parameters: ChunkerParameters = .documents) {
        self.parameters = parameters
        let bits = parameters.averageSize.trailingZeroBitCount
        // Normalization level 2: two bits more before the average, two fewer after it.
        // The mask takes the top bits: with `hash << 1 + gear[byte]` they depend on the last
        // 64 bytes, the widest window the hash has.
        smallMask = ContentDefinedChunker.topBits(bits + 2)
        largeMask = ContentDefinedChunker.topBits(max(bits - 2, 1))
    }

    static func topBits(_ count: Int) -> UInt64 { ~UInt64(0) << UInt64(64 - count) }

    /// The length of the chunk that starts at `buffer[0]`.
    ///
    /// Give it at least `parameters.maximumSize` bytes, or everything left when less remains;
    /// the result is then in `1...maximumSize` (the whole buffer when it is shorter than the
    /// minimum size).
    public func chunkLength(of buffer: UnsafeRawBufferPointer) -> Int {
        let count = Swift.min(buffer.count, parameters.maximumSize)
        if count <= parameters.minimumSize { return count }
        let bytes = buffer.bindMemory(to: UInt8.self).baseAddress!
        let gear = GearTable.pointer
        let normal = Swift.min(parameters.averageSize, count)
        var hash: UInt64 = 0
        var index = parameters.minimumSize
        let small = smallMask, large = largeMask
        // Two bytes per step: `h2 = 4h + (2g[a] + g[b])` keeps the loop-carried chain at one
        // shift and one add per two bytes; `h1 = 2h + g[a]`, the hash after the first byte,
        // is checked off that chain. Boundaries are exactly those of the one-byte loop.
        while index &+ 1 < normal {
            let first = gear[Int(bytes[index])], second = gear[Int(bytes[index &+ 1])]
            let afterFirst = (hash &<< 1) &+ first
            hash = (hash &<< 2) &+ ((first &<< 1) &+ second)
            if afterFirst & small == 0 { return index &+ 1 }
            index &+= 2
            if hash & small == 0 { return index }
        }
        while index < normal {
            hash = (hash &<< 1) &+ gear[Int(bytes[index])]
            index &+= 1
            if hash & small == 0 { return index }
        }
        while index &+ 1 < count {
            let first = gear[Int(bytes[index])], second = gear[Int(bytes[index &+ 1])]
            let afterFirst = (hash &<< 1) &+ first
            hash = (hash &<< 2) &+ ((first &<< 1) &+ second)
            if afterFirst & large == 0 { return index &+ 1 }
            index &+= 2
            if hash & large == 0 { return index }
        }
        while index < count {
            hash = (hash &<< 1) &+ gear[Int(bytes[index])]
            index &+= 1
            if hash & large == 0 { return index }
        }
        return count
    }
}

/// The gear hash's 256 random 64-bit values, from SplitMix64 with a fixed seed.
/// Part of the chunk format: never change the seed or the generator.
public enum GearTable {
    public static let values: [UInt64] = {
        var state: UInt64 = 0x646f_6373_796e_6331 // "docsync1"
        return (0..<256).map { _ in
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }()

    /// A pointer to `values` that lives as long as the process (read in the hot loop).
    public nonisolated(unsafe) static let pointer: UnsafePointer<UInt64> = {
        let storage = UnsafeMutablePointer<UInt64>.allocate(capacity: 256)
        storage.initialize(from: values, count: 256)
        return UnsafePointer(storage)
    }()
}
