import Foundation

/// Turns a long chunk list into a small tree of content-defined manifest nodes (casync and
/// bup style), so that the manifest of a large file is never resent whole.
///
/// A manifest node is an ordinary chunk: its bytes are `"DSM1"` followed by 36-byte entries
/// (32-byte digest, 4-byte big-endian length), and it is stored and fetched by its SHA-256
/// like any data chunk. Node boundaries are chosen from the entries' digests, not their
/// positions, so inserting or replacing a chunk changes only the node that holds it (and at
/// most its neighbour when a boundary entry itself changed), plus the root in the record.
public enum ManifestTree {
    /// A reference holds at most this many entries; past it, one more level is built.
    public static let maximumRootEntries = 64
    /// Nodes hold between `minimumNodeEntries` and `maximumNodeEntries` entries,
    /// `averageNodeEntries` on average (about 2.3 KB per node).
    public static let minimumNodeEntries = 16
    public static let averageNodeEntries = 64
    public static let maximumNodeEntries = 256
    static let magic: [UInt8] = Array("DSM1".utf8)
    static let entrySize = 36

    /// Whether `bytes`, stored under `id`, are a manifest node: they start with the node's
    /// magic and hash to `id`. Only bytes with the magic are hashed, so a sealed chunk (whose
    /// first byte is its cipher suite) is told from a node without a pass over its body.
    public static func isNode(_ bytes: Data, storedAs id: SHA256Digest) -> Bool {
        bytes.starts(with: magic) && SHA256Digest(hashing: bytes) == id
    }

    /// A manifest node to be stored as a chunk: its reference and its bytes.
    public struct Node: Hashable, Sendable {
        public let ref: ChunkRef
        public let bytes: Data
    }

    /// Builds the tree for `manifest`: the reference a record stores, and the nodes that
    /// must be stored as chunks (every level, each node once, leaves first).
    public static func build(_ manifest: AssetManifest) -> (reference: AssetReference, nodes: [Node]) {
        var level = manifest.chunks
        var depth = 0
        var nodes: [Node] = []
        var seen = Set<SHA256Digest>()
        while level.count > maximumRootEntries {
            var next: [ChunkRef] = []
            for group in split(level) {
                let node = encode(group)
                next.append(node.ref)
                if seen.insert(node.ref.digest).inserted { nodes.append(node) }
            }
            level = next
            depth += 1
        }
        let reference = AssetReference(depth: depth, entries: level, chunkCount: manifest.chunks.count,
                                       size: manifest.size, contentDigest: manifest.contentDigest)
        return (reference, nodes)
    }

    /// Splits a list of entries into node-sized groups whose boundaries depend only on the
    /// entries' digests: a group ends after an entry whose digest's low bits are zero (once
    /// it has `minimumNodeEntries`), or when it reaches `maximumNodeEntries`.
    static func split(_ entries: [ChunkRef]) -> [ArraySlice<ChunkRef>] {
        let mask = UInt64(averageNodeEntries - 1)
        var groups: [ArraySlice<ChunkRef>] = []
        var start = 0
        for index in entries.indices {
            let length = index - start + 1
            let boundary = length >= minimumNodeEntries && entries[index].digest.w3 & mask == 0
            if boundary || length == maximumNodeEntries {
                groups.append(entries[start...index])
                start = index + 1
            }
        }
        if start < entries.count { groups.append(entries[start...]) }
        return groups
    }

    /// Encodes one node.
    static func encode(_ entries: ArraySlice<ChunkRef>) -> Node {
        var bytes = Data(capacity: magic.count + entries.count * entrySize)
        bytes.append(contentsOf: magic)
        for entry in entries {
            bytes.append(contentsOf: entry.digest.bytes)
            withUnsafeBytes(of: UInt32(entry.length).bigEndian) { bytes.append(contentsOf: $0) }
        }
        return Node(ref: ChunkRef(digest: SHA256Digest(hashing: bytes), length: bytes.count), bytes: bytes)
    }

    /// Decodes a node's bytes, which must hash to `ref.digest`. Throws `.chunkCorrupt`
    /// when they do not or when they are not a well-formed node.
    public static func decodeNode(_ bytes: Data, ref: ChunkRef) throws(SyncError) -> [ChunkRef] {
        guard bytes.count == ref.length, SHA256Digest(hashing: bytes) == ref.digest else {
            throw SyncError(.chunkCorrupt, "manifest node \(ref.digest.shortHex) does not match its digest", digest: ref.digest)
        }
        let body = bytes.dropFirst(magic.count)
        guard bytes.prefix(magic.count).elementsEqual(magic), body.count % entrySize == 0, !body.isEmpty else {
            throw SyncError(.chunkCorrupt, "manifest node \(ref.digest.shortHex) is malformed", digest: ref.digest)
        }
        var entries: [ChunkRef] = []
        entries.reserveCapacity(body.count / entrySize)
        var offset = body.startIndex
        while offset < body.endIndex {
            let digest = SHA256Digest(bytes: body[offset..<offset + 32])!
            let length = body[offset + 32..<offset + 36].reduce(0) { $0 << 8 | Int($1) }
            entries.append(ChunkRef(digest: digest, length: length))
            offset += entrySize
        }
        return entries
    }

    /// Expands a reference to the full ordered chunk list. Each level's nodes are asked of
    /// `loadNodes` together, once per level (a tree of a 50 MB file has two levels at most);
    /// it returns their bytes by digest, and may return more. Every node is checked against
    /// its digest here. Throws `.chunkNotFound` for a node `loadNodes` did not return,
    /// `.chunkCorrupt` when a node is damaged or the result disagrees with the reference's
    /// chunk count or size, and whatever `loadNodes` throws.
    public static func expand(
        _ reference: AssetReference, loadNodes: ([ChunkRef]) async throws(SyncError) -> [SHA256Digest: Data]
    ) async throws(SyncError) -> AssetManifest {
        var level = reference.entries
        for _ in 0..<reference.depth {
            let loaded = try await loadNodes(level)
            var next: [ChunkRef] = []
            for ref in level {
                guard let bytes = loaded[ref.digest] else { throw SyncError.chunkNotFound(ref.digest) }
                next += try decodeNode(bytes, ref: ref)
            }
            level = next
        }
        let manifest = AssetManifest(chunks: level, contentDigest: reference.contentDigest)
        guard manifest.chunks.count == reference.chunkCount, manifest.size == reference.size else {
            throw SyncError(.chunkCorrupt, "asset manifest of \(reference.contentDigest.shortHex) has \(manifest.chunks.count) chunks and \(manifest.size) bytes, expected \(reference.chunkCount) and \(reference.size)")
        }
        return manifest
    }

    /// The nodes of the tree of `manifest`, by digest: what a device that holds a version of
    /// a file can offer `expand` (through `loadNodes`) when a new version arrives, so that
    /// only the nodes the edit changed travel.
    public static func nodesByDigest(of manifest: AssetManifest) -> [SHA256Digest: Data] {
        guard manifest.chunks.count > maximumRootEntries else { return [:] }
        return Dictionary(build(manifest).nodes.map { ($0.ref.digest, $0.bytes) }, uniquingKeysWith: { a, _ in a })
    }
}
