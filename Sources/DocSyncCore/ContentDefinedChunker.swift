import Crypto

/// Finds content-defined chunk boundaries in one stream with a gear hash (as FastCDC) and a
/// boundary rule that depends on content only, never on where the current chunk started.
///
/// The hash at a position depends on the 64 bytes ending there; whether a candidate (see
/// `ChunkerParameters`) is a boundary depends on the `minimumSize` bytes before it. So an
/// insertion or deletion of a few bytes can only change boundaries within about
/// `minimumSize + 64` bytes after it — one boundary at most, as boundaries are at least
/// `minimumSize` apart — and every boundary further on stays exactly where it was (shifted
/// by the edit). The edit therefore changes the chunk that holds it and at most the next
/// one. (Only forced cuts at `maximumSize`, which need a stretch with no boundary at all,
/// depend on the previous cut.) FastCDC's "normalized chunking" was measured and rejected:
/// its masks depend on the distance from the chunk's start, so a moved boundary can
/// cascade through several following chunks.
///
/// Deterministic: the same bytes (and gear table) give the same boundaries on every machine
/// and release; the standard gear table and the rule must never change. A chunker carries state from one chunk to
/// the next: use one per stream, from its first byte.
public struct ContentDefinedChunker: Sendable {
    public let parameters: ChunkerParameters
    /// The gear hash's values: `GearTable.standard`, or an encrypted folder's epoch's.
    public let gear: GearTable
    let mask: UInt64
    /// The rolling hash over the bytes consumed so far.
    var hash: UInt64 = 0
    /// Bytes consumed since the last candidate; the stream's start counts as one.
    var sinceCandidate = 0

    public init(_ parameters: ChunkerParameters = .documents, gear: GearTable = .standard) {
        self.parameters = parameters
        self.gear = gear
        // The mask takes the top bits: with `hash << 1 + gear[byte]` they depend on the
        // last 64 bytes, the widest window the hash has.
        mask = ~UInt64(0) << UInt64(64 - parameters.candidateSpacing.trailingZeroBitCount)
    }

    /// Consumes the next chunk of the stream, which starts at `buffer[0]`, and returns its
    /// length, in `1...maximumSize`.
    ///
    /// Give it at least `parameters.maximumSize` bytes, or everything left of the stream
    /// when less remains (then the whole buffer may be returned as the last chunk).
    public mutating func nextChunkLength(of buffer: UnsafeRawBufferPointer) -> Int {
        let count = Swift.min(buffer.count, parameters.maximumSize)
        guard count > 0 else { return 0 }
        let bytes = buffer.bindMemory(to: UInt8.self).baseAddress!
        let gear = UnsafePointer(self.gear.pointer)
        let mask = self.mask, minimum = parameters.minimumSize
        var hash = self.hash
        // End offset (in this buffer) of the last candidate; negative when it was earlier.
        var lastCandidate = -sinceCandidate
        var index = 0
        // Two bytes per step: `h2 = 4h + (2g[a] + g[b])` keeps the loop-carried chain at one
        // shift and one add per two bytes; `h1 = 2h + g[a]` is checked off that chain.
        // Boundaries are exactly those of a one-byte loop.
        while index &+ 1 < count {
            let first = gear[Int(bytes[index])], second = gear[Int(bytes[index &+ 1])]
            let afterFirst = (hash &<< 1) &+ first
            hash = (hash &<< 2) &+ ((first &<< 1) &+ second)
            index &+= 2
            if afterFirst & mask == 0 || hash & mask == 0 {
                if afterFirst & mask == 0 {
                    if index &- 1 &- lastCandidate > minimum { return cut(at: index &- 1, hash: afterFirst) }
                    lastCandidate = index &- 1
                }
                if hash & mask == 0 {
                    if index &- lastCandidate > minimum { return cut(at: index, hash: hash) }
                    lastCandidate = index
                }
            }
        }
        while index < count {
            hash = (hash &<< 1) &+ gear[Int(bytes[index])]
            index &+= 1
            if hash & mask == 0 {
                if index &- lastCandidate > minimum { return cut(at: index, hash: hash) }
                lastCandidate = index
            }
        }
        // Forced cut at the maximum size, or the end of the stream.
        self.hash = hash
        sinceCandidate = count &- lastCandidate
        return count
    }

    private mutating func cut(at length: Int, hash: UInt64) -> Int {
        self.hash = hash
        sinceCandidate = 0
        return length
    }
}

/// The gear hash's 256 64-bit values. `standard` is drawn from SplitMix64 with a fixed seed
/// and is part of the chunk format of plain folders: never change the seed or the
/// generator. An encrypted folder's epoch draws its own from its chunker key
/// (`init(key:)`), so where its chunks start depends on the key (SPEC §13).
public final class GearTable: Sendable {
    public let values: [UInt64]
    /// `values`, in memory that lives as long as the table (read in the hot loop).
    nonisolated(unsafe) let pointer: UnsafeMutablePointer<UInt64>

    init(values: [UInt64]) {
        precondition(values.count == 256, "a gear table has 256 values")
        self.values = values
        pointer = UnsafeMutablePointer<UInt64>.allocate(capacity: 256)
        pointer.initialize(from: values, count: 256)
    }

    deinit { pointer.deallocate() }

    /// The table of plain folders.
    public static let standard: GearTable = {
        var generator = SplitMix64(seed: 0x646f_6373_796e_6331) // "docsync1"
        return GearTable(values: (0..<256).map { _ in generator.next() })
    }()

    /// The table of an encrypted folder's epoch: 2,048 bytes of HKDF-SHA256 of `key` (salt
    /// `docsync/1`, info `gear`), read as 256 big-endian 64-bit values.
    public convenience init(key: SymmetricKey) {
        let bytes = HKDF<SHA256>.deriveKey(inputKeyMaterial: key, salt: Array("docsync/1".utf8), info: Array("gear".utf8), outputByteCount: 2_048)
            .withUnsafeBytes { Array($0) }
        self.init(values: (0..<256).map { index in
            bytes[index * 8..<index * 8 + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        })
    }
}
