import Crypto

/// How a chunk is named, the `digest` of its `ChunkRef`: by the SHA-256 of its content in a
/// plain folder, by the HMAC-SHA256 under an encrypted folder's epoch key (SPEC §13), so that
/// an id tells the server nothing about the content and deduplicates within that epoch only.
/// A caller may rely on `contentHash` naming exactly as `SHA256Digest(hashing:)` does.
public enum ChunkNaming: Sendable {
    case contentHash
    case keyed(FolderEpochKeys)

    /// The id of a chunk whose bytes are `content`.
    public func id(of content: UnsafeRawBufferPointer) -> SHA256Digest {
        switch self {
        case .contentHash: SHA256Digest(hashing: content)
        case .keyed(let keys): keys.chunkID(of: content)
        }
    }

    /// The epoch whose key names chunks; `nil` for content hashes.
    public var epoch: UInt32? {
        if case .keyed(let keys) = self { keys.epoch } else { nil }
    }
}
