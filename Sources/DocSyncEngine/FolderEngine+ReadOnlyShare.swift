import DocSyncCore
import DocSyncStorage
import Foundation
import GRDB

/// A read-only participant's device (SPEC §11) sends nothing: in place of the send, each
/// change made here is decided by `ReadOnlySharePlanner` and carried out by the executor —
/// new items stay here, marked "not shared: read-only" (a per-item problem, not pending);
/// edits are kept beside as conflict copies and the shared version written back; deleted,
/// moved or changed items are put back as the share has them. The brake never counts these
/// deletions, and one notice tells what a pass did, not one per file.
extension FolderEngine {
    /// Keeps every pending change on this device as above. Returns false when some file was
    /// changing while it was looked at: the loop tries again shortly. Transient backend
    /// errors (the shared version's content could not be fetched) are thrown and retried;
    /// any other failure of one item keeps that item here, so nothing loops.
    func keepReadOnlyChanges(loop: inout EngineLoop) async throws(SyncError) -> Bool {
        var keptHere = 0, putBack = 0, complete = true
        // A conflict copy made in one pass is a new item kept here by the next.
        for _ in 0..<3 {
            var cursor = Sender.PageCursor()
            var didSomething = false
            // Every pending change, deletions too (the brake does not hold them here).
            let sql = Sender.pendingPageSQL(condition: Self.sendableCondition(deletionsReleased: true))
            while true {
                let rows = try readIndex { db in
                    try IndexItem.fetchAll(db, sql: sql, arguments: [cursor.path, cursor.path, cursor.recordName])
                }
                guard let last = rows.last else { break }
                cursor = Sender.PageCursor(path: last.path.string, recordName: last.recordName)
                for row in rows {
                    switch try await keepReadOnlyChange(row, loop: &loop) {
                    case .keptHere: keptHere += 1; didSomething = true
                    case .putBack: putBack += 1; didSomething = true
                    case .changing: complete = false
                    case .unchanged: break
                    }
                }
            }
            if !didSomething { break }
        }
        if keptHere + putBack > 0 {
            logger.notice("the share is read-only for this account: changes made here stay on this device",
                          metadata: ["path": "\(configuration.root.path)", "keptHere": "\(keptHere)", "putBack": "\(putBack)"])
        }
        return complete
    }

    /// What became of one item's change.
    private enum ReadOnlyOutcome { case keptHere, putBack, changing, unchanged }

    private func keepReadOnlyChange(_ found: IndexItem, loop: inout EngineLoop) async throws(SyncError) -> ReadOnlyOutcome {
        var row = found
        do {
            if row.pending == .save, row.needsRead { try readContent(&row) }
            let copy = ConflictName.copyPath(for: row.path, device: copyLabel, time: row.modified, isTaken: observer.isTaken)
            switch ReadOnlySharePlanner.plan(observer.localItem(row), conflictCopy: copy, copyRecordName: environment.newRecordName()) {
            case .unchanged:
                return .unchanged
            case .keepLocal:
                try keepHere(row)
                return .keptHere
            case .putBack(let actions):
                try await executor.execute(actions, rows: [row.recordName: row], loop: &loop)
                logger.debug("put the shared version back", metadata: ["path": "\(row.path)", "record": "\(row.recordName)", "plan": "\(actions)"])
                return .putBack
            }
        } catch where error.code == .assetFileModified {
            return .changing
        } catch where error.isTransient {
            throw error
        } catch {
            logger.warning("cannot put the shared version back; the item stays as it is on this device",
                           metadata: ["path": "\(row.path)", "record": "\(row.recordName)", "error": "\(error.message)"])
            try keepHere(row)
            return .keptHere
        }
    }

    /// Marks `row` as kept on this device: a per-item problem, not pending, sent if the
    /// share becomes read-write (`learn`).
    private func keepHere(_ row: IndexItem) throws(SyncError) {
        let name = row.recordName
        try writeIndex { db in
            try db.execute(sql: "UPDATE item SET uploadingError = ?, isUploading = 0 WHERE recordName = ?",
                           arguments: [FolderStatus.notSharedReadOnly, name])
        }
    }
}
