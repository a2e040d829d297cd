import DocSyncCore
import GRDB

extension IndexItem {
    /// What reconciling needs to know of a live row to tell whether its item is still on
    /// disk and unchanged: read without decoding the row's records.
    struct Presence {
        var recordName: String
        var path: RelativePath
        var kind: RecordType
        var isPlaceholder: Bool
        /// The on-disk facts the row holds (read as `Database.itemFacts` reads them), as the
        /// planner compares them.
        var facts: ItemFacts
        /// The server acknowledged a version of it.
        var acknowledged: Bool
        var digest: SHA256Digest?

        /// The live rows (not pending deletion) at `path` and, when `beneath`, everything
        /// under it (`nil`: the root, so every live row when `beneath`, none otherwise).
        static func live(_ db: Database, at path: RelativePath?, beneath: Bool) throws -> [Presence] {
            try rows(db, at: path, beneath: beneath, where: "pending != 2")
        }

        /// The rows whose deletion waits to be sent, at `path` and (when `beneath`) under it.
        static func pendingDeletions(_ db: Database, at path: RelativePath?, beneath: Bool) throws -> [Presence] {
            try rows(db, at: path, beneath: beneath, where: "pending = 2")
        }

        /// The live rows at `path` and everything under it (`nil`: every live row), in the
        /// byte order of their paths, read as the caller goes.
        static func liveInPathOrder(_ db: Database, at path: RelativePath?) throws -> some Cursor<Presence> {
            let (sql, arguments) = query(at: path, beneath: true, where: "pending != 2")!
            return try Row.fetchCursor(db.cachedStatement(sql: sql + " ORDER BY path"), arguments: arguments).compactMap(Presence.init(row:))
        }

        private static func rows(_ db: Database, at path: RelativePath?, beneath: Bool, where condition: String) throws -> [Presence] {
            guard let (sql, arguments) = query(at: path, beneath: beneath, where: condition) else { return [] }
            return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments).compactMap(Presence.init(row:))
        }

        /// The rows of `condition` at `path` and, when `beneath`, under it; `nil` when that
        /// is nothing (the root alone).
        private static func query(at path: RelativePath?, beneath: Bool, where condition: String) -> (String, StatementArguments)? {
            let columns = "SELECT recordName, path, kind, downloadingStatus, size, mtime, inode, mode, acked IS NOT NULL, digest FROM item"
            switch (path, beneath) {
            case (nil, false):
                return nil
            case (nil, true):
                return ("\(columns) WHERE \(condition)", [])
            case (let path?, false):
                return ("\(columns) WHERE path = ? AND \(condition)", [path.string])
            case (let path?, true):
                return ("\(columns) WHERE (path = ? OR (path >= ? AND path < ?)) AND \(condition)",
                        [path.string, path.string + "/", path.string + "0"])  // "0" follows "/" in byte order
            }
        }

    }
}

extension IndexItem.Presence {
    /// A row of `Presence.query`'s columns; `nil` for a kind this version does not know.
    fileprivate init?(row: Row) {
        guard let kind = RecordType(rawValue: row[2]) else { return nil }
        self.init(recordName: row[0], path: RelativePath(row[1] as String), kind: kind,
                  isPlaceholder: (row[3] as String) == Placeholder.notDownloaded, facts: ItemFacts(type: kind, FileStat(indexed: kind, row, from: 4)),
                  acknowledged: row[8], digest: (row[9] as String?).flatMap { SHA256Digest(hex: $0) })
    }
}

extension ItemFacts {
    /// The facts of `stat` as the planner compares them; `nil` for a FIFO, socket or device
    /// file, which is never synced.
    init?(_ stat: FileStat) {
        guard let type = RecordType(stat.kind) else { return nil }
        self.init(type: type, stat)
    }

    /// The facts of `stat` for an item of `type`.
    init(type: RecordType, _ stat: FileStat) {
        self.init(type: type, size: stat.size, modified: stat.modified, inode: stat.inode, mode: stat.mode)
    }
}

extension FileStat {
    /// The facts the planner compared, as a stat (no device: the index keeps none).
    init(_ facts: ItemFacts) {
        self.init(kind: FileStat.Kind(facts.type), size: facts.size, modified: facts.modified, inode: facts.inode, device: 0, mode: facts.mode)
    }
}
