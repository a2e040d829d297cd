/// One chunk of an asset: its SHA-256 digest (its address) and its length in bytes.
public struct ChunkRef: Hashable, Codable, Sendable, CustomStringConvertible {
    public let digest: SHA256Digest
    public let length: Int

    public init(digest: SHA256Digest, length: Int) {
        self.digest = digest
        self.length = length
    }

    public var description: String { "\(digest.shortHex)+\(length)" }
}
