import DocSyncCore
import GRDB

/// Items the engine moved whose move is not yet acknowledged: aside to a conflict name
/// (another item took their path), or along with a folder a remote change moved while their
/// own records stayed (`sendStrandedItems`). Such a move is the engine's, not a person's
/// edit: if the item's record turns out deleted on another device meanwhile, the deletion
/// wins, as it would have had the engine not touched the item (SPEC §4's edit-beats-delete
/// is about what people changed). They are kept in the index's `movedAside` table.
extension FolderEngine {
    /// Remembers that the engine moved `row` to its current path.
    func noteMovedByEngine(_ row: IndexItem, in db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO movedAside (recordName, path) VALUES (?, ?)", arguments: [row.recordName, row.path.string])
    }

    /// Whether `row`'s only change since its acknowledged record is the engine's move:
    /// still where the engine put it, with the acknowledged content, type and mode.
    func onlyMovedByEngine(_ row: IndexItem) throws(SyncError) -> Bool {
        guard row.pending == .save, let acked = row.acked,
              let path = try readIndex({ db in try String.fetchOne(db, sql: "SELECT path FROM movedAside WHERE recordName = ?", arguments: [row.recordName]) }),
              path.bytesEqual(row.path.string) else { return false }
        let local = row.record(zone: configuration.zone, device: configuration.device)
        return local.type == acked.type && local.size == acked.size && local.contentDigest == acked.contentDigest
            && local.symlinkTarget.bytesEqual(acked.symlinkTarget) && local.mode == acked.mode
    }

    /// Whether `row`'s only change is a move no edit competes with: the engine's, or one to
    /// another folder under its name (`RemoteChangePlanner.onlyRelocated`).
    func onlyMoved(_ row: IndexItem) throws(SyncError) -> Bool {
        if try onlyMovedByEngine(row) { return true }
        guard row.pending == .save, let acked = row.acked else { return false }
        return RemoteChangePlanner.onlyRelocated(acked, row.record(zone: configuration.zone, device: configuration.device))
    }
}
