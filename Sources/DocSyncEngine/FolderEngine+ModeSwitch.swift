import DocSyncCore
import Foundation
import GRDB

/// What a folder switching between `mirror` and `on-demand` asks of its index (SPEC §14):
/// how much is not local, and placeholders brought up to the mount's shape. Called by the
/// daemon while it prepares the folder, before `run()`: nothing else writes the index then.
extension FolderEngine {
    /// The live documents whose content is not on this device (placeholders), by path, with
    /// their sizes.
    public func notLocalDocuments() -> [(path: RelativePath, size: Int64)] {
        let rows = (try? index.read { db in
            try Row.fetchAll(db, sql: "SELECT path, size FROM item WHERE kind = ? AND downloadingStatus = ? AND pending != 2",
                             arguments: [RecordType.document.rawValue, Placeholder.notDownloaded])
        }) ?? []
        return rows.compactMap { row in
            guard let path = try? RelativePath(validating: row["path"] as String) else { return nil }
            return (path, row["size"])
        }
    }

    /// Unpins every document: a folder that becomes on-demand keeps its files in the cache,
    /// unpinned (SPEC §14).
    public func unpinAll() throws(SyncError) {
        try writeIndex { db in try db.execute(sql: "DELETE FROM pin") }
    }

    /// Rewrites every placeholder that does not have its document's size as a hole of that
    /// size with the document's mode and time — the empty stubs `.NAME.docsync` of a folder
    /// that was on demand before files were served through the mount — keeping the index's
    /// record of which file shows the item. Returns how many were rewritten.
    @discardableResult
    public func refreshPlaceholders() throws(SyncError) -> Int {
        let rows = try readIndex { db in
            try IndexItem.fetchAll(db, sql: """
                SELECT \(IndexItem.columns.joined(separator: ", ")) FROM item
                WHERE kind = ? AND downloadingStatus = ? AND pending != 2
                """, arguments: [RecordType.document.rawValue, Placeholder.notDownloaded])
        }
        var rewritten = 0
        for row in rows {
            guard let acked = row.acked, let placeholder = Placeholder.path(for: row.path) else { continue }
            let shownBy = absolute(placeholder)
            guard let stat = (try? fileSystem.status(shownBy)) ?? nil, stat.kind == .file,
                  stat.size != row.size || stat.mode & 0o7777 != row.mode & 0o7777 else { continue }
            try Placeholder.write(size: row.size, mode: row.mode, modified: row.modified, at: shownBy, in: fileSystem)
            let updated = placeholderRow(acked, shownBy: shownBy, replacing: row)
            try writeIndex { db in try updated.update(db) }
            rewritten += 1
        }
        if rewritten > 0 { logger.notice("placeholders rewritten with their documents' sizes", metadata: ["count": "\(rewritten)"]) }
        return rewritten
    }
}
