/// The content of one file as an ordered list of chunks, with the whole file's digest.
///
/// Concatenating the chunks' bytes in order gives the file; `contentDigest` is the SHA-256
/// of those bytes and `size` their total length. An empty file has no chunks.
public struct AssetManifest: Hashable, Codable, Sendable {
    public let chunks: [ChunkRef]
    public let contentDigest: SHA256Digest
    public let size: Int64

    public init(chunks: [ChunkRef], contentDigest: SHA256Digest) {
        self.chunks = chunks
        self.contentDigest = contentDigest
        self.size = chunks.reduce(Int64(0)) { $0 + Int64($1.length) }
    }

    /// Each distinct chunk once, in first-use order.
    public var distinctChunks: [ChunkRef] {
        var seen = Set<SHA256Digest>()
        return chunks.filter { seen.insert($0.digest).inserted }
    }
}
