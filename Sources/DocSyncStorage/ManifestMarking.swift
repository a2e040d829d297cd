import DocSyncCore
import Foundation

/// How a collection's marking walks the manifest trees of large assets, the same for every
/// store (`GarbageCollector`, the scale-out collector): a stored record's asset marks its
/// top-level chunks, and when it has levels its entries are nodes to read, each of which
/// marks what it lists and, above the last level, the nodes below. A chunk stored within
/// the grace period that has a node's length may be a node of an upload whose record is not
/// saved yet: it is read as a suspected node, whose entries are marked if it decodes as one.
public enum ManifestMarking {
    /// A manifest node to read: how many levels lie below it (0: it lists data chunks), or
    /// `nil` for a chunk only suspected of being a node.
    public struct Node: Sendable, Hashable {
        public var ref: ChunkRef
        public var levelsBelow: Int?

        public init(ref: ChunkRef, levelsBelow: Int?) {
            self.ref = ref
            self.levelsBelow = levelsBelow
        }
    }

    /// A known node that does not decode: what it lists cannot be told, so nothing may be removed.
    public struct MalformedNode: Error {
        public let digest: SHA256Digest
    }

    /// The lengths a manifest node may have (`ManifestTree`: a 4-byte magic and 1–256
    /// entries of 36 bytes).
    public static let nodeLengths = (4 + 36) ... (4 + 36 * ManifestTree.maximumNodeEntries)

    /// Whether a chunk of `length` bytes may be a manifest node.
    public static func mayBeNode(length: Int) -> Bool {
        nodeLengths.contains(length) && (length - 4) % 36 == 0
    }

    /// What a stored asset keeps directly (its top-level entries) and the nodes to read.
    public static func roots(of asset: AssetReference) -> (marked: [ChunkRef], nodes: [Node]) {
        (asset.entries, asset.depth > 0 ? asset.entries.map { Node(ref: $0, levelsBelow: asset.depth - 1) } : [])
    }

    /// One node per digest of `level` not expanded yet; a node known to be one wins over
    /// the same chunk only suspected of being one.
    public static func unique(_ level: [Node], expanded: Set<SHA256Digest>) -> [SHA256Digest: Node] {
        var unique: [SHA256Digest: Node] = [:]
        for node in level where !expanded.contains(node.ref.digest) {
            if unique[node.ref.digest]?.levelsBelow == nil { unique[node.ref.digest] = node }
        }
        return unique
    }

    /// What the read `bytes` of `node` keep: the chunks it lists and the nodes of the next
    /// level; `nil` for a suspected node that is not one. Throws `MalformedNode` for a known
    /// node that does not decode.
    public static func expand(_ node: Node, bytes: Data) throws(MalformedNode) -> (marked: [ChunkRef], nodes: [Node])? {
        let entries: [ChunkRef]
        do { entries = try ManifestTree.decodeNode(bytes, ref: ChunkRef(digest: node.ref.digest, length: bytes.count)) } catch {
            if node.levelsBelow == nil { return nil }  // only looked like a node
            throw MalformedNode(digest: node.ref.digest)
        }
        switch node.levelsBelow {
        case 0?: return (entries, [])
        case let below?: return (entries, entries.map { Node(ref: $0, levelsBelow: below - 1) })
        case nil: return (entries, entries.filter { mayBeNode(length: $0.length) }.map { Node(ref: $0, levelsBelow: nil) })
        }
    }
}
