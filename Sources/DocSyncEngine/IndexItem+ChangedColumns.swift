import DocSyncCore
import DocSyncStorage
import GRDB

extension IndexItem {
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
        let changed = IndexItem.columns.indices.dropFirst().filter { differs(at: $0, from: stored) }
        guard !changed.isEmpty else { return }
        let assignments = changed.map { "\(IndexItem.columns[$0]) = ?" }.joined(separator: ", ")
        let statement = try db.directStatement(sql: "UPDATE item SET \(assignments) WHERE recordName = ?")
        for (position, column) in changed.enumerated() { bind(column: column, to: statement, at: Int32(position + 1)) }
        statement.bind(Int32(changed.count + 1), recordName)
        try statement.execute()
    }

    /// Whether column `column` (a position in `columns`) holds a different value for this
    /// item than for `other`.
    private func differs(at column: Int, from other: IndexItem) -> Bool {
        switch column {
        case 1, 2: return path != other.path
        case 3: return kind != other.kind
        case 4: return size != other.size
        case 5: return modified != other.modified
        case 6: return inode != other.inode
        case 7: return mode != other.mode
        case 8: return digest != other.digest
        case 9: return asset != other.asset
        case 10: return symlinkTarget != other.symlinkTarget
        case 11: return acked != other.acked
        case 12: return pending != other.pending
        case 13: return needsRead != other.needsRead
        case 14: return chunksUploaded != other.chunksUploaded
        case 15: return revision != other.revision
        case 16: return status.downloadingStatus != other.status.downloadingStatus
        case 17: return status.isDownloading != other.status.isDownloading
        case 18: return status.percentDownloaded != other.status.percentDownloaded
        case 19: return status.isUploading != other.status.isUploading
        case 20: return status.isUploaded != other.status.isUploaded
        case 21: return status.percentUploaded != other.status.percentUploaded
        case 22: return status.downloadingError != other.status.downloadingError
        case 23: return status.uploadingError != other.status.uploadingError
        case 24: return status.hasUnresolvedConflicts != other.status.hasUnresolvedConflicts
        default: preconditionFailure("item has no column \(column)")
        }
    }

    /// Binds this item's value of column `column` as parameter `parameter`, stored as `update(_:)` stores it.
    private func bind(column: Int, to statement: DirectStatement, at parameter: Int32) {
        switch column {
        case 1: statement.bind(parameter, path.string)
        case 2: statement.bind(parameter, path.name)
        case 3: statement.bind(parameter, kind.rawValue)
        case 4: statement.bind(parameter, size)
        case 5: statement.bind(parameter, modified.nanosecondsSince1970)
        case 6: statement.bind(parameter, Int64(bitPattern: inode))
        case 7: statement.bind(parameter, Int64(mode))
        case 8: statement.bind(parameter, digest?.hex)
        case 9: statement.bind(parameter, asset.map { CompactCoding.encode($0) })
        case 10: statement.bind(parameter, symlinkTarget)
        case 11: statement.bind(parameter, acked.map { CompactCoding.encode($0) })
        case 12: statement.bind(parameter, Int64(pending.rawValue))
        case 13: statement.bind(parameter, needsRead)
        case 14: statement.bind(parameter, chunksUploaded)
        case 15: statement.bind(parameter, revision)
        case 16: statement.bind(parameter, status.downloadingStatus)
        case 17: statement.bind(parameter, status.isDownloading)
        case 18: statement.bind(parameter, status.percentDownloaded)
        case 19: statement.bind(parameter, status.isUploading)
        case 20: statement.bind(parameter, status.isUploaded)
        case 21: statement.bind(parameter, status.percentUploaded)
        case 22: statement.bind(parameter, status.downloadingError)
        case 23: statement.bind(parameter, status.uploadingError)
        case 24: statement.bind(parameter, status.hasUnresolvedConflicts)
        default: preconditionFailure("item has no column \(column)")
        }
    }
}
