import DocSyncCore
import DocSyncStorage
import GRDB

extension IndexItem {
    /// One column of table `item` after `recordName`: how two items are compared on it and
    /// how an item's value is bound for it.
    struct Column: Sendable {
        let name: String
        let differs: @Sendable (IndexItem, IndexItem) -> Bool
        let bind: @Sendable (IndexItem, DirectStatement, Int32) -> Void
    }

    /// The columns after `recordName`, in schema order (`columns.dropFirst()`).
    static let boundColumns: [Column] = [
        Column(name: "path", differs: { $0.path != $1.path }, bind: { $1.bind($2, $0.path.string) }),
        Column(name: "name", differs: { $0.path != $1.path }, bind: { $1.bind($2, $0.path.name) }),
        Column(name: "kind", differs: { $0.kind != $1.kind }, bind: { $1.bind($2, $0.kind.rawValue) }),
        Column(name: "size", differs: { $0.size != $1.size }, bind: { $1.bind($2, $0.size) }),
        Column(name: "mtime", differs: { $0.modified != $1.modified }, bind: { $1.bind($2, $0.modified.nanosecondsSince1970) }),
        Column(name: "inode", differs: { $0.inode != $1.inode }, bind: { $1.bind($2, Int64(bitPattern: $0.inode)) }),
        Column(name: "mode", differs: { $0.mode != $1.mode }, bind: { $1.bind($2, Int64($0.mode)) }),
        Column(name: "digest", differs: { $0.digest != $1.digest }, bind: { $1.bind($2, $0.digest?.hex) }),
        Column(name: "asset", differs: { $0.asset != $1.asset }, bind: { $1.bind($2, $0.asset.map { CompactCoding.encode($0) }) }),
        Column(name: "symlinkTarget", differs: { !$0.symlinkTarget.bytesEqual($1.symlinkTarget) }, bind: { $1.bind($2, $0.symlinkTarget) }),
        Column(name: "acked", differs: { $0.acked != $1.acked }, bind: { $1.bind($2, $0.acked.map { CompactCoding.encode($0) }) }),
        Column(name: "pending", differs: { $0.pending != $1.pending }, bind: { $1.bind($2, Int64($0.pending.rawValue)) }),
        Column(name: "needsRead", differs: { $0.needsRead != $1.needsRead }, bind: { $1.bind($2, $0.needsRead) }),
        Column(name: "chunksUploaded", differs: { $0.chunksUploaded != $1.chunksUploaded }, bind: { $1.bind($2, $0.chunksUploaded) }),
        Column(name: "revision", differs: { $0.revision != $1.revision }, bind: { $1.bind($2, $0.revision) }),
        Column(name: "downloadingStatus", differs: { $0.status.downloadingStatus != $1.status.downloadingStatus },
               bind: { $1.bind($2, $0.status.downloadingStatus) }),
        Column(name: "isDownloading", differs: { $0.status.isDownloading != $1.status.isDownloading }, bind: { $1.bind($2, $0.status.isDownloading) }),
        Column(name: "percentDownloaded", differs: { $0.status.percentDownloaded != $1.status.percentDownloaded },
               bind: { $1.bind($2, $0.status.percentDownloaded) }),
        Column(name: "isUploading", differs: { $0.status.isUploading != $1.status.isUploading }, bind: { $1.bind($2, $0.status.isUploading) }),
        Column(name: "isUploaded", differs: { $0.status.isUploaded != $1.status.isUploaded }, bind: { $1.bind($2, $0.status.isUploaded) }),
        Column(name: "percentUploaded", differs: { $0.status.percentUploaded != $1.status.percentUploaded },
               bind: { $1.bind($2, $0.status.percentUploaded) }),
        Column(name: "downloadingError", differs: { $0.status.downloadingError != $1.status.downloadingError },
               bind: { $1.bind($2, $0.status.downloadingError) }),
        Column(name: "uploadingError", differs: { $0.status.uploadingError != $1.status.uploadingError },
               bind: { $1.bind($2, $0.status.uploadingError) }),
        Column(name: "hasUnresolvedConflicts", differs: { $0.status.hasUnresolvedConflicts != $1.status.hasUnresolvedConflicts },
               bind: { $1.bind($2, $0.status.hasUnresolvedConflicts) }),
        Column(name: "lastEditorName", differs: { !($0.acked?.lastEditorName).bytesEqual($1.acked?.lastEditorName) },
               bind: { $1.bind($2, $0.acked?.lastEditorName) }),
    ]

    /// Writes this item over its row, setting only the columns in which it differs from
    /// `stored` (the row as the caller read it). Nothing is written when nothing differs.
    ///
    /// Why: SQLite rewrites the entry of every index whose columns an `UPDATE` names, even
    /// when the value stays the same. `update(_:)` names all of them, so each write of an
    /// item also deleted and re-inserted its entries in `item_by_inode`, `item_pending` and
    /// the wide `item_metadata`. Preparing a page of 1,000 items changes a few columns of each.
    ///
    /// A column the caller did not change keeps whatever the row holds now, even if another
    /// write changed it after `stored` was read.
    public func update(_ db: Database, from stored: IndexItem) throws {
        precondition(stored.recordName == recordName, "update(_:from:) compares two versions of one item")
        let changed = IndexItem.boundColumns.filter { $0.differs(self, stored) }
        guard !changed.isEmpty else { return }
        let assignments = changed.map { "\($0.name) = ?" }.joined(separator: ", ")
        let statement = try db.directStatement(sql: "UPDATE item SET \(assignments) WHERE recordName = ?")
        for (position, column) in changed.enumerated() { column.bind(self, statement, Int32(position + 1)) }
        statement.bind(Int32(changed.count + 1), recordName)
        try statement.execute()
    }
}
