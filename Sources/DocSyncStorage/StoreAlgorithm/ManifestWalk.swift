import DocSyncCore
import Foundation

/// What a collection keeps (SPEC §4a, "storage is reclaimed, never early"), the same for
/// every store: a chunk is kept while a live record, a Recently Deleted entry or a replaced
/// version references it — directly, or through the manifest nodes of a large asset, which
/// are chunks too — or while it was stored (or stored again) within the grace period
/// (`StoreRetention.graceCutoff`); a chunk within the grace period that has a manifest
/// node's length may be a node of an upload whose record is not saved yet, so what it lists
/// (if it decodes as a node) is kept too. Every other chunk may be swept.
///
/// The walk is the marking's decisions; a store's collector reads the rows and the node
/// bytes it asks for, keeps the marks in its own set, and sweeps:
///
///     var walk = ManifestWalk()
///     for body in keptBodies { marks.formUnion(try walk.keep(body: body)) }
///     walk.suspect(nodeSizedChunksWithinGrace)
///     while true {
///         let level = walk.nextLevel()
///         if level.isEmpty { break }
///         let read = try loadStored(level.keys)   // the bytes of those stored
///         marks.formUnion(try walk.expand(level, read: read).marked)
///     }
public struct ManifestWalk: Sendable {
    /// A collection that must not remove anything: what a kept manifest node lists is
    /// unknown (it cannot be read, or does not decode).
    public struct Stop: Error, Sendable {
        public let reason: String

        public init(reason: String) { self.reason = reason }
    }

    /// What reading one level gave: the chunks to mark, and the known nodes that are not
    /// stored (a damaged store: the collector says so; they list nothing it can keep).
    public struct Expansion: Sendable {
        public var marked: [ChunkRef] = []
        public var missingNodes: [SHA256Digest] = []
    }

    /// Nodes read or found missing: never read twice.
    public private(set) var expanded = Set<SHA256Digest>()
    private var pending: [ManifestMarking.Node] = []

    public init() {}

    /// What a kept version's `body` marks directly (its asset's top-level entries); its
    /// manifest nodes are read in later levels. Throws `internalError` for a body that does
    /// not decode.
    public mutating func keep(body: Data) throws(SyncError) -> [ChunkRef] {
        try keep(StoredVersion.decode(body))
    }

    /// What a kept `record` marks directly; its manifest nodes are read in later levels.
    public mutating func keep(_ record: Record) -> [ChunkRef] {
        guard let asset = record.asset else { return [] }
        let (marked, nodes) = ManifestMarking.roots(of: asset)
        pending += nodes
        return marked
    }

    /// Chunks stored within the grace period with a node's length: read as suspected
    /// nodes, whose entries are kept if they decode as a node. Those expanded already are
    /// left out.
    public mutating func suspect(_ chunks: [ChunkRef]) {
        pending += chunks.filter { ManifestMarking.mayBeNode(length: $0.length) && !expanded.contains($0.digest) }
            .map { ManifestMarking.Node(ref: $0, levelsBelow: nil) }
    }

    /// The nodes to read next, one per digest not read yet (a known node wins over the same
    /// chunk only suspected); empty once the walk is over.
    public mutating func nextLevel() -> [SHA256Digest: ManifestMarking.Node] {
        defer { pending = [] }
        return ManifestMarking.unique(pending, expanded: expanded)
    }

    /// Takes the bytes `read` of the stored nodes of `level` (those absent are not stored)
    /// and returns what they mark; the nodes they list are read in the next level.
    /// Throws `Stop` for a known node that does not decode.
    public mutating func expand(_ level: [SHA256Digest: ManifestMarking.Node], read: [SHA256Digest: Data]) throws(Stop) -> Expansion {
        var expansion = Expansion()
        for digest in level.keys.sorted(by: { $0.bytes.lexicographicallyPrecedes($1.bytes) }) {
            let node = level[digest]!
            expanded.insert(digest)
            guard let bytes = read[digest] else {
                if node.levelsBelow != nil { expansion.missingNodes.append(digest) }
                continue
            }
            let found: (marked: [ChunkRef], nodes: [ManifestMarking.Node])?
            do { found = try ManifestMarking.expand(node, bytes: bytes) } catch {
                throw Stop(reason: "kept manifest node \(digest.shortHex) cannot be read (malformed); nothing was removed: purge or save again the record that names it")
            }
            guard let found else { continue }
            expansion.marked += found.marked
            pending += found.nodes
        }
        return expansion
    }
}
