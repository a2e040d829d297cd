import DocSyncCore
import DocSyncPlatform
import Foundation
import GRDB

/// Where replaced and deleted content goes instead of being unlinked: a directory under the
/// folder's state directory, catalogued in the index's `version` table.
///
/// Keeping a file costs nothing when the store is on the same file system (a hard link, or
/// a rename for deletions); otherwise the file is copied. Entries older than the folder's
/// `keep_versions_days` are pruned by `prune(olderThan:)`.
public struct VersionStore: Sendable {
    public enum Reason: String, Sendable {
        /// Content that lost a conflict.
        case conflict
        /// Local content replaced by a remote change.
        case overwritten
        /// A file deleted on another device.
        case deleted
        /// An input of a line-wise merge (this device's or the other's), replaced by the
        /// merged text.
        case merged
    }

    public let directory: URL
    let fileSystem: any FolderFileSystem
    /// When a version is kept: its entry's time and the day directory it goes into.
    let now: @Sendable () -> Timestamp

    public init(directory: URL, fileSystem: any FolderFileSystem = PosixFileSystem(), now: @escaping @Sendable () -> Timestamp = { Timestamp.now }) {
        self.directory = directory
        self.fileSystem = fileSystem
        self.now = now
    }

    /// Keeps the file at `absolutePath` (the content of `item`) in the store. With `move`,
    /// the file leaves the folder; otherwise it stays and the store gets a link or copy.
    /// Throws when the content could not be kept — the caller must then not touch the file.
    ///
    /// The kept name is durable when this returns, and with `move` so is the file's absence
    /// from the folder (kept first, then gone: a power cut in between leaves it in both
    /// places, never in neither).
    public func keep(
        _ absolutePath: String, item: IndexItem, reason: Reason, device: String, move: Bool, in db: Database
    ) throws {
        let now = self.now()
        let day = String(now.date.formatted(.iso8601.year().month().day()))
        let folder = directory.appendingPathComponent(day)
        try makeDurably(folder)
        let stored = folder.appendingPathComponent("\(now.nanosecondsSince1970)-\(item.recordName)-\(item.path.name)")
        if move {
            do throws(FileSystemError) { try fileSystem.rename(absolutePath, to: stored.path) } catch {
                // Another file system: copied, then removed.
                guard error.code == EXDEV else { throw error }
                try fileSystem.copyFile(absolutePath, to: stored.path)
                try fileSystem.flushDirectory(folder.path)
                try? fileSystem.removeFile(absolutePath)
            }
            try fileSystem.flushDirectory(folder.path)
            try fileSystem.flushDirectory((absolutePath as NSString).deletingLastPathComponent)
        } else {
            do throws(FileSystemError) { try fileSystem.hardLink(absolutePath, to: stored.path) } catch {
                // No second name possible there: a copy.
                guard [EXDEV, EPERM, EMLINK].contains(error.code) else { throw error }
                try fileSystem.copyFile(absolutePath, to: stored.path)
            }
            try fileSystem.flushDirectory(folder.path)
        }
        try db.execute(sql: """
            INSERT INTO version (recordName, path, savedAt, reason, device, size, file) VALUES (?, ?, ?, ?, ?, ?, ?)
            """, arguments: [item.recordName, item.path.string, now.nanosecondsSince1970, reason.rawValue, device, item.size,
                             stored.path.dropFirst(directory.path.count + 1).description])
    }

    /// Makes the directory `url` and any missing parent, each one's name durable.
    private func makeDurably(_ url: URL) throws(FileSystemError) {
        guard try fileSystem.status(url.path) == nil else { return }
        let parent = url.deletingLastPathComponent()
        if parent.path != url.path { try makeDurably(parent) }
        do { try fileSystem.makeDirectory(url.path, mode: 0o700) } catch where error.code == EEXIST {}
        try fileSystem.flushDirectory(parent.path)
    }

    /// Removes versions saved before `cutoff`; returns how many.
    @discardableResult
    public func prune(olderThan cutoff: Timestamp, in db: Database) throws -> Int {
        let old = try Row.fetchAll(db, sql: "SELECT id, file FROM version WHERE savedAt < ?", arguments: [cutoff.nanosecondsSince1970])
        for row in old {
            try? fileSystem.removeFile(directory.appendingPathComponent(row["file"] as String).path)
            try db.execute(sql: "DELETE FROM version WHERE id = ?", arguments: [row["id"] as Int64])
        }
        return old.count
    }
}
