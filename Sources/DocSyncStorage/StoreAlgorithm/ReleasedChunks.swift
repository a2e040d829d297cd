import DocSyncCore
import Foundation

/// The chunks that versions removed from a store referenced (`StoreAlgorithm.moveZone`):
/// each removed asset's top-level chunks or manifest nodes, and — once the store has read
/// those nodes (`nextNodes`, `read`) — everything they list, level by level, as a
/// collection's marking walks them (`ManifestWalk`).
///
/// They are garbage at once, without the grace period: a store clears their age and
/// collects. Whatever a version still kept references (another zone's record, Recently
/// Deleted entry or replaced version) is marked by that collection as always, so
/// releasing a chunk never removes one something else keeps.
public struct ReleasedChunks: Sendable {
    /// The released chunks found so far (every one, once `nextNodes` is empty).
    public private(set) var digests = Set<SHA256Digest>()
    private var walk = ManifestWalk()

    public init() {}

    /// Adds what `body`, a removed version, references at the top of its asset; its
    /// manifest nodes are read in later levels. Throws `internalError` for a body that does
    /// not decode (a damaged store).
    mutating func release(body: Data) throws(SyncError) {
        digests.formUnion(try walk.keep(body: body).map(\.digest))
    }

    /// The manifest nodes to read next, one per digest; empty once every released chunk is
    /// found.
    public mutating func nextNodes() -> [SHA256Digest: ManifestMarking.Node] {
        walk.nextLevel()
    }

    /// Takes the bytes `read` of the stored nodes of `level` (what `nextNodes` returned;
    /// those absent are not stored) and adds what they list. A node that does not decode
    /// lists nothing that can be told: what it lists is left to a later collection, which
    /// finds it unreferenced once its grace period is over.
    public mutating func read(_ level: [SHA256Digest: ManifestMarking.Node], bytes read: [SHA256Digest: Data]) {
        for (digest, node) in level {
            guard let expansion = try? walk.expand([digest: node], read: read) else { continue }
            digests.formUnion(expansion.marked.map(\.digest))
        }
    }

    /// Finds every released chunk, reading each level of manifest nodes with `load` (the
    /// bytes of those of the digests given that are stored).
    public mutating func findAll<Failure: Error>(loading load: ([SHA256Digest]) throws(Failure) -> [SHA256Digest: Data]) throws(Failure) {
        while true {
            let level = nextNodes()
            if level.isEmpty { return }
            read(level, bytes: try load(Array(level.keys)))
        }
    }
}
