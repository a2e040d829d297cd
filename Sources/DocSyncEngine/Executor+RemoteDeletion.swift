import DocSyncCore
import Foundation
import GRDB

/// The executor's steps for a record deleted on another device: the local file goes to the
/// version store; an emptied folder is removed.
extension Executor {
    /// Removes the folder of `row` and its row; ignored files left inside go to the version store.
    func removeDirectory(_ row: IndexItem) throws(SyncError) {
        let path = absolute(row.path)
        var removed = true
        do { try fileSystem.removeDirectory(path) } catch where error.code != ENOENT { removed = false } catch {}
        if !removed {
            // Only ignored files are left inside (the planner saw no live items): keep them.
            try writeIndex { db in try versions.keep(path, item: row, reason: .deleted, device: row.acked?.lastModifiedBy ?? "", move: true, in: db) }
        }
        try writeIndex { db in try db.deleteItem(named: row.recordName) }
    }

    /// Moves the file of `row` to the version store (deleted on another device) and drops its row.
    func deleteToVersionStore(_ row: IndexItem) throws(SyncError) {
        let path = absolute(row.path)
        try writeIndex { db in
            try versions.keep(path, item: row, reason: .deleted, device: row.acked?.lastModifiedBy ?? "", move: true, in: db)
            try db.deleteItem(named: row.recordName)
            try db.refreshConflictFlags(around: [row.path])
        }
        logger.info("deleted on another device; kept in the version store", metadata: ["path": "\(row.path)"])
    }
}
