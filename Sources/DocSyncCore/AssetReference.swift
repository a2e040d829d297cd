/// What a record stores about its content: the root of the asset's manifest tree.
///
/// When `depth` is 0, `entries` are the data chunks themselves, in order. When `depth` is
/// `d > 0`, `entries` are manifest nodes (see `ManifestTree`) whose decoded entries form a
/// reference of depth `d - 1`. A reference never holds more than
/// `ManifestTree.maximumRootEntries` entries, so a record stays small however large the
/// file, and a small edit changes only one path of the tree.
public struct AssetReference: Hashable, Codable, Sendable {
    public let depth: Int
    public let entries: [ChunkRef]
    /// Number of data chunks in the whole asset.
    public let chunkCount: Int
    /// Length of the content in bytes.
    public let size: Int64
    /// SHA-256 of the whole content.
    public let contentDigest: SHA256Digest

    public init(depth: Int, entries: [ChunkRef], chunkCount: Int, size: Int64, contentDigest: SHA256Digest) {
        self.depth = depth
        self.entries = entries
        self.chunkCount = chunkCount
        self.size = size
        self.contentDigest = contentDigest
    }
}
