import DocSyncCore
import Foundation
import GRDB
import Logging

/// Mark and sweep of the embedded store's chunks (SPEC §4a: storage is reclaimed, never early).
///
/// A chunk is kept while a live record, a Recently Deleted entry or a replaced version
/// references it — directly, or through the manifest nodes of a large file's asset, which
/// are chunks too — and while it was stored (or stored again) less than `grace` ago, with
/// whatever the manifest nodes among those list. Everything else is removed.
///
/// Marking reads one snapshot without holding the write lock. Removal then goes in write
/// transactions of `sweepBatch` chunks, each of which first marks what was kept since the
/// snapshot (records and versions with a later sequence value, manifest nodes within the
/// grace period) and removes a chunk only if it is still unmarked and still older than the
/// grace period. `modifyRecords` looks for a save's chunks inside its own write
/// transaction, so a save either commits before such a transaction (and is marked by it)
/// or after (and fails with `chunkNotFound`): no record ever names a removed chunk.
///
/// Run by `LocalBackend.collectGarbage` under the store's `CollectionLock`.
struct GarbageCollector {
    let pool: DatabasePool
    let packs: PackStore
    let grace: TimeInterval
    let logger: Logger

    /// Chunks removed per write transaction: the write lock is held a fraction of a second.
    static let sweepBatch = 20_000

    /// A collection that must not remove anything: a manifest node could not be read, so
    /// what it lists is unknown.
    struct Stop: Error {
        let reason: String
    }

    /// What is marked so far, the walk through manifest nodes (`ManifestWalk`: what keeps
    /// a chunk is decided there, for every store), and through which sequence value records
    /// and kept versions are.
    struct Marking {
        var marks = ChunkMarks()
        var walk = ManifestWalk()
        var seq: Int64 = 0

        mutating func mark(_ refs: [ChunkRef]) {
            for ref in refs { marks.insert(ref.digest.indexKey) }
        }
    }

    /// A chunk that may go: its row, its key, its length and its pack.
    struct Candidate {
        var rowid: Int64
        var key: Int64
        var length: Int64
        var pack: Int64
    }

    /// Removes the chunks nothing keeps; counts them into `report`, and returns the packs
    /// that held one. Throws `Stop` (nothing removed since the last committed transaction)
    /// when a manifest node cannot be read.
    @discardableResult
    func sweep(into report: inout GarbageCollectionReport) throws -> Set<Int64> {
        var depleted = Set<Int64>()
        let cutoff = PackStore.storageTime(Date().addingTimeInterval(-grace))
        var (marking, candidates) = try pool.read { db in try mark(olderThan: cutoff, db) }
        logger.debug("marked chunks", metadata: ["marked": "\(marking.marks.count)", "candidates": "\(candidates.count)"])
        var start = 0
        while start < candidates.count {
            let batch = candidates[start ..< min(start + Self.sweepBatch, candidates.count)]
            start += Self.sweepBatch
            let (removed, bytes, packs) = try pool.writeWithoutTransaction { db in
                var removed: (count: Int64, bytes: Int64, packs: Set<Int64>) = (0, 0, [])
                try db.inTransaction(.immediate) {
                    try catchUp(&marking, olderThan: cutoff, db)
                    let delete = try db.directStatement(sql: "DELETE FROM chunk WHERE rowid = ? AND storedAt < ?")
                    for candidate in batch where !marking.marks.contains(candidate.key) {
                        delete.bind(1, candidate.rowid)
                        delete.bind(2, cutoff)
                        try delete.execute()
                        if db.changesCount > 0 {
                            removed.count += 1
                            removed.bytes += candidate.length
                            removed.packs.insert(candidate.pack)
                        }
                    }
                    try StoreCounters.add(chunks: -removed.count, bytes: -removed.bytes, db)
                    return .commit
                }
                return removed
            }
            report.chunksRemoved += Int(removed)
            report.chunkBytesRemoved += bytes
            depleted.formUnion(packs)
        }
        candidates = []
        return depleted
    }

    /// Marks what the snapshot `db` keeps, and lists the chunks older than `cutoff` it does not.
    private func mark(olderThan cutoff: Int64, _ db: Database) throws -> (Marking, [Candidate]) {
        var marking = Marking()
        marking.seq = try Int64.fetchOne(db, sql: "SELECT value FROM sequence WHERE id = 1") ?? 0
        for table in ["record", "deletedRecord", "replacedVersion"] {
            let bodies = try Data.fetchCursor(db, sql: "SELECT body FROM \(table)")
            while let body = try bodies.next() { marking.mark(try marking.walk.keep(body: body)) }
        }
        marking.walk.suspect(try nodesWithinGrace(after: cutoff, db))
        try expand(&marking, db)
        marking.marks.seal()
        var candidates: [Candidate] = []
        let old = try db.directStatement(sql: "SELECT rowid, digestKey, length, pack FROM chunk WHERE storedAt < ?")
        old.bind(1, cutoff)
        try old.forEachRow { row in
            let key = row.integer(1)
            if !marking.marks.contains(key) {
                candidates.append(Candidate(rowid: row.integer(0), key: key, length: row.integer(2), pack: row.integer(3)))
            }
        }
        return (marking, candidates)
    }

    /// Marks, inside a sweep's write transaction, what was kept since the marks were made.
    private func catchUp(_ marking: inout Marking, olderThan cutoff: Int64, _ db: Database) throws {
        let current = try Int64.fetchOne(db, sql: "SELECT value FROM sequence WHERE id = 1") ?? 0
        if current > marking.seq {
            var queries: [(String, StatementArguments)] = try String.fetchAll(db, sql: "SELECT name FROM zone").map {
                ("SELECT body FROM record WHERE zone = ? AND seq > ?", [$0, marking.seq])
            }
            queries.append(("SELECT body FROM deletedRecord WHERE seq > ?", [marking.seq]))
            queries.append(("SELECT body FROM replacedVersion WHERE seq > ?", [marking.seq]))
            for (sql, arguments) in queries {
                let bodies = try Data.fetchCursor(db, sql: sql, arguments: arguments)
                while let body = try bodies.next() { marking.mark(try marking.walk.keep(body: body)) }
            }
            marking.seq = current
        }
        marking.walk.suspect(try nodesWithinGrace(after: cutoff, db))
        try expand(&marking, db)
    }

    /// The chunks stored within the grace period that have a manifest node's length
    /// (`ManifestTree`: a 4-byte magic and 1–256 entries of 36 bytes). An upload may store
    /// a new node over old chunks that nothing references yet, and save its record later.
    private func nodesWithinGrace(after cutoff: Int64, _ db: Database) throws -> [ChunkRef] {
        var nodes: [ChunkRef] = []
        let recent = try Row.fetchCursor(db, sql: """
            SELECT digest, length FROM chunk WHERE storedAt >= ? AND length BETWEEN ? AND ? AND (length - 4) % 36 = 0
            """, arguments: [cutoff, ManifestMarking.nodeLengths.lowerBound, ManifestMarking.nodeLengths.upperBound])
        while let row = try recent.next() {
            if let digest = SHA256Digest(bytes: row[0] as Data) { nodes.append(ChunkRef(digest: digest, length: row[1])) }
        }
        return nodes
    }

    /// Reads the walk's nodes level by level, in groups of about 8 MiB, and marks what they list.
    private func expand(_ marking: inout Marking, _ db: Database) throws {
        while true {
            let level = marking.walk.nextLevel()
            if level.isEmpty { return }
            let places = try PackStore.places(of: Array(level.keys), db)
            var group: [SHA256Digest: PackStore.Place] = [:]
            var groupBytes = 0
            func readGroup(_ nodes: [SHA256Digest: ManifestMarking.Node]) throws {
                let loaded: [SHA256Digest: Data]
                do { loaded = try packs.read(group, relocating: false) } catch {
                    throw Stop(reason: "manifest node or chunk \(error.digest?.shortHex ?? "?") cannot be read (\(error.message))")
                }
                let expansion: ManifestWalk.Expansion
                do { expansion = try marking.walk.expand(nodes, read: loaded) } catch { throw Stop(reason: error.reason) }
                for digest in expansion.missingNodes {
                    logger.error("a kept record's manifest node is not stored; the chunks it lists cannot be told", metadata: ["node": "\(digest.shortHex)"])
                }
                marking.mark(expansion.marked)
                group = [:]
                groupBytes = 0
            }
            try readGroup(level.filter { places[$0.key] == nil })  // not stored: nothing to read
            for (digest, place) in places {
                group[digest] = place
                groupBytes += place.length
                if groupBytes >= 8 << 20 { try readGroup(level.filter { group[$0.key] != nil }) }
            }
            if !group.isEmpty { try readGroup(level.filter { group[$0.key] != nil }) }
        }
    }
}
