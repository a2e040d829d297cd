/// Size bounds of content-defined chunks.
///
/// `averageSize` must be a power of two; `minimumSize < averageSize < maximumSize`.
public struct ChunkerParameters: Hashable, Sendable, CustomStringConvertible {
    public let minimumSize: Int
    public let averageSize: Int
    public let maximumSize: Int

    public init(minimumSize: Int, averageSize: Int, maximumSize: Int) {
        precondition(averageSize > 0 && averageSize & (averageSize - 1) == 0, "averageSize must be a power of two")
        precondition(0 < minimumSize && minimumSize < averageSize && averageSize < maximumSize, "need min < avg < max")
        precondition(maximumSize <= 1 << 24, "chunks are at most 16 MiB")
        self.minimumSize = minimumSize
        self.averageSize = averageSize
        self.maximumSize = maximumSize
    }

    /// The parameters for documents, fixed for the life of the format (changing them would
    /// re-chunk every file).
    ///
    /// Chosen by measurement (`make bench` prints the table): for a 1-byte insertion in the
    /// middle of a 50 MB random file, 16 KiB average chunks cost about 20–40 KiB of new
    /// chunks plus a few KiB of manifest, inside the 64 KiB budget with room for an unlucky
    /// boundary; 64 KiB averages blow the budget on their own, while 4 KiB and 8 KiB averages
    /// save a few KiB per edit but double or quadruple the chunk count of every file (more
    /// rows, more existence checks, more requests, a larger manifest to walk). The minimum of
    /// a quarter of the average lets the chunker skip hashing a quarter of every chunk; the
    /// maximum of four times the average bounds the worst single chunk of an edit at 64 KiB.
    public static let documents = ChunkerParameters(minimumSize: 4 * 1024, averageSize: 16 * 1024, maximumSize: 64 * 1024)

    public var description: String { "min \(minimumSize) / avg \(averageSize) / max \(maximumSize)" }
}
