import DocSyncCore
import Foundation
import GRDB

/// Read-only answers about the folder's items for `docs-status`: per-item status, conflicts,
/// problems and kept versions. They read the index (never the folder), from any task.
extension FolderEngine {
    /// The path of `absolute` inside this folder: `.some(nil)` for the folder itself, `nil`
    /// when it is outside. A placeholder's path (`.NAME.docsync`) gives its item's path.
    public func relativePath(ofAbsolute absolute: String) -> RelativePath?? {
        let root = configuration.root.path
        if absolute.bytesEqual(root) { return .some(nil) }
        guard absolute.hasBytePrefix(root + "/"),
              let path = try? RelativePath(validating: String(decoding: absolute.utf8.dropFirst(root.utf8.count + 1), as: UTF8.self)) else {
            return nil
        }
        return .some(Placeholder.itemPath(of: path) ?? path)
    }

    /// The live items directly inside the folder `directory` (`nil`: its top level), by path.
    public func children(of directory: RelativePath?) throws -> [ItemStatus] {
        let rows = try index.read { db -> [IndexItem] in
            guard let directory else {
                return try IndexItem.fetchAll(db, sql: "SELECT * FROM item WHERE pending != 2 AND instr(path, '/') = 0 ORDER BY path")
            }
            let prefix = directory.string + "/"
            return try IndexItem.fetchAll(db, sql: """
                SELECT * FROM item WHERE pending != 2 AND path > ? AND path < ? AND instr(substr(path, ?), '/') = 0 ORDER BY path
                """, arguments: [prefix, directory.string + "0", Database.characterPosition(after: directory) + 1])  // past the "/"
        }
        return rows.map(itemStatus)
    }

    /// The live item at `path`, if any.
    public func item(at path: RelativePath) throws -> ItemStatus? {
        try index.read { db in try db.item(at: path) }.map(itemStatus)
    }

    /// Items with a conflict copy beside them, and the conflict copies themselves, by path.
    public func conflictItems() throws -> [ItemStatus] {
        let rows = try index.read { db in
            try IndexItem.fetchAll(db, sql: "SELECT * FROM item WHERE pending != 2 AND (hasUnresolvedConflicts OR name LIKE '% (conflict %') ORDER BY path")
        }
        return rows.filter { $0.status.hasUnresolvedConflicts || ConflictName.isConflictCopy($0.path.name) }.map(itemStatus)
    }

    /// Everything in this folder that needs a person: per-item upload and download errors and
    /// the problems the engine and watcher reported.
    /// What needs a person: what the folder holds back (the folder itself, path "."), then
    /// each item's problem.
    public func problemEntries() -> [ProblemEntry] {
        let status = status()
        let held = status.held.map { [ProblemEntry(folder: configuration.zone.name, path: ".", message: $0.message)] } ?? []
        return held + status.problems.map { ProblemEntry(folder: configuration.zone.name, path: $0.path, message: $0.message) }
    }

    /// The kept versions of the item at `path` (and of whatever record was last there), newest first.
    public func versionEntries(at path: RelativePath) throws -> [VersionEntry] {
        try index.read { db in
            let recordName = try String.fetchOne(db, sql: "SELECT recordName FROM item WHERE path = ?", arguments: [path.string])
            return try Row.fetchAll(db, sql: """
                SELECT id, path, savedAt, reason, device, size FROM version WHERE path = ? OR recordName = ? ORDER BY savedAt DESC, id DESC
                """, arguments: [path.string, recordName]).map { row in
                VersionEntry(id: row[0], folder: configuration.zone.name, path: row[1],
                             savedAt: Timestamp(nanosecondsSince1970: row[2]).date, reason: row[3], device: row[4], size: row[5])
            }
        }
    }

    /// An index row as `docs-status` shows it.
    public func itemStatus(_ row: IndexItem) -> ItemStatus {
        itemStatus(MetadataItem(row, sharing: sharing))
    }

    /// An item's metadata as `docs-status` shows it.
    public func itemStatus(_ item: MetadataItem) -> ItemStatus {
        ItemStatus(folder: configuration.zone.name, path: item.path.string, name: item.path.name, kind: item.kind.rawValue,
                   size: item.size, modified: item.modified.date, downloadingStatus: item.status.downloadingStatus,
                   isDownloading: item.status.isDownloading, percentDownloaded: item.status.percentDownloaded,
                   isUploading: item.status.isUploading, isUploaded: item.status.isUploaded,
                   percentUploaded: item.status.percentUploaded, downloadingError: item.status.downloadingError,
                   uploadingError: item.status.uploadingError, hasUnresolvedConflicts: item.status.hasUnresolvedConflicts,
                   sharing: item.sharing, lastEditorName: item.lastEditorName)
    }
}
