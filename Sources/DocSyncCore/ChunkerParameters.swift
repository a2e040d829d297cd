/// The shape of content-defined chunks.
///
/// A position is a *candidate* boundary when the gear hash of the 64 bytes ending there has
/// its top `log2(candidateSpacing)` bits clear (one position in `candidateSpacing` on random
/// data). A candidate becomes a boundary only when no other candidate lies in the
/// `minimumSize` bytes before it, so chunks are at least `minimumSize` long (except the last,
/// and one after a forced cut); a chunk that reaches `maximumSize` is cut there.
public struct ChunkerParameters: Hashable, Sendable, CustomStringConvertible {
    public let minimumSize: Int
    /// A power of two: on random data, candidates are this far apart on average.
    public let candidateSpacing: Int
    public let maximumSize: Int

    public init(minimumSize: Int, candidateSpacing: Int, maximumSize: Int) {
        precondition(candidateSpacing > 1 && candidateSpacing & (candidateSpacing - 1) == 0, "candidateSpacing must be a power of two")
        precondition(0 < minimumSize && minimumSize < maximumSize, "need 0 < minimumSize < maximumSize")
        precondition(maximumSize <= 1 << 24, "chunks are at most 16 MiB")
        self.minimumSize = minimumSize
        self.candidateSpacing = candidateSpacing
        self.maximumSize = maximumSize
    }

    /// The parameters for documents, fixed for the life of the format (changing them would
    /// re-chunk every stored file).
    ///
    /// Chosen by measurement (`make bench` prints the comparison; figures from 120 random
    /// 1–8 byte edits of a 50 MB random file): with a 2 KiB minimum, candidates every 4 KiB
    /// and a 32 KiB maximum, chunks average about 6.8 KiB and an edit costs 15 KiB of new
    /// chunks and manifest at the median, 25 KiB at p90 and 38 KiB at worst — always inside
    /// the 64 KiB budget. Candidates every 8 KiB halve the chunk count but cost 27 / 48 /
    /// 72 KiB and break the budget on an unlucky edit (a long chunk next to the edit);
    /// every 16 KiB breaks it on one edit in ten. The chunk count this costs (about 150
    /// chunks per MB) is carried by batched existence checks and uploads.
    public static let documents = ChunkerParameters(minimumSize: 2 * 1024, candidateSpacing: 4 * 1024, maximumSize: 32 * 1024)

    public var description: String { "min \(minimumSize) / candidate every \(candidateSpacing) / max \(maximumSize)" }
}
