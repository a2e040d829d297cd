import DocSyncCore
import GRDB

/// A zone gone from the server (SPEC §5 `zoneNotFound`, `userDeletedZone`): made again, and
/// everything this device holds sent again.
extension FolderEngine {
    /// Creates the zone (after `zoneNotFound`); when the index had synced items, the zone
    /// was deleted on the server (`userDeletedZone`): everything is uploaded again.
    func recreateZone() async throws(SyncError) {
        try await backend.createZone(configuration.zone)
        let hadToken = loadToken() != nil
        try writeIndex { db in
            try db.setChangeToken(nil)
            try forgetAcknowledgements(db)
        }
        if hadToken { logger.warning("the folder's zone was deleted on the server; uploading the folder again") }
    }

    /// Items the server acknowledged but no longer has become new again (sent without a
    /// change tag, chunks checked again); pending deletions of them are simply done.
    /// `only` limits it to those items (default: every acknowledged item).
    func forgetAcknowledgements(_ db: Database, only: [String]? = nil) throws {
        let names = try only ?? String.fetchAll(db, sql: "SELECT recordName FROM item WHERE acked IS NOT NULL")
        for name in names {
            guard var row = try db.item(named: name), row.acked != nil else { continue }
            if row.isPlaceholder {
                // Its content was only on the server: nothing is left to show or send.
                if let placeholder = Placeholder.path(for: row.path) { try? fileSystem.removeFile(absolute(placeholder)) }
                try db.deleteItem(named: row.recordName)
                logger.warning("a placeholder's content is gone from the server", metadata: ["path": "\(row.path)"])
                continue
            }
            if row.pending == .delete {
                try db.deleteItem(named: row.recordName)
                continue
            }
            row.acked = nil
            row.chunksUploaded = false
            row.markChanged()
            try row.update(db)
        }
    }
}
