import DocSyncCore
import Foundation
import GRDB

/// A record deleted on another device: the local file goes to the version store, unless it
/// changed here (the edit wins) or a folder still holds new local items.
extension FolderEngine {
    /// A remote deletion.
    func applyRemoteDeletion(_ recordName: String) throws(SyncError) {
        guard var row = try readIndex({ db in try db.item(named: recordName) }) else { return }
        switch row.pending {
        case .delete:
            try writeIndex { db in try db.deleteItem(named: recordName) }
            return
        case .save:
            // Changed here, deleted there: the edit wins and is sent as a new save.
            row.acked = nil
            let final = row
            try writeIndex { db in try final.update(db) }
            return
        case .none:
            if row.isPlaceholder { return try removePlaceholder(row) }
        }
        let path = absolute(row.path)
        guard let stat = try? fileSystem.status(path) else {
            try writeIndex { db in try db.deleteItem(named: recordName) }
            return
        }
        if !row.matches(stat) || row.kind == .folder {
            try reconcile([EngineInbox.Scope(path: row.path, subtree: row.kind == .folder)])
            guard let again = try readIndex({ db in try db.item(named: recordName) }) else { return }
            row = again
            if row.pending == .save {
                row.acked = nil
                let final = row
                try writeIndex { db in try final.update(db) }
                return
            }
        }
        if row.kind == .folder {
            let children = try readIndex { db in try db.items(under: row.path).filter { $0.recordName != recordName && $0.pending != .delete } }
            if !children.isEmpty {
                // New local items inside: the folder stays and is sent again.
                row.acked = nil
                markChanged(&row)
                let final = row
                try writeIndex { db in try final.update(db) }
                return
            }
            var removed = true
            do { try fileSystem.removeDirectory(path) } catch where error.code != ENOENT { removed = false } catch {}
            if !removed {
                // Only ignored files are left inside: keep them in the version store.
                let kept = row
                try writeIndex { db in try versions.keep(path, item: kept, reason: .deleted, device: kept.acked?.lastModifiedBy ?? "", move: true, in: db) }
            }
            try writeIndex { db in try db.deleteItem(named: recordName) }
            return
        }
        let kept = row
        try writeIndex { db in
            try versions.keep(path, item: kept, reason: .deleted, device: kept.acked?.lastModifiedBy ?? "", move: true, in: db)
            try db.deleteItem(named: recordName)
            try refreshConflictFlags(db, around: [kept.path])
        }
        logger.info("deleted on another device; kept in the version store", metadata: ["path": "\(kept.path)"])
    }
}
