import DocSyncCore
import DocSyncPlatform
import DocSyncStorage
import Foundation
import Synchronization

/// Low-level writes into the folder, through its `FolderFileSystem`: temporary files,
/// parent directories that never pass through a symlink, atomic replacement.
enum Materializer {
    /// Every temporary file the daemon makes starts with this (and is ignored by the watcher rules).
    static let temporaryPrefix = IgnoreRules.temporaryFilePrefix

    /// An error of the local file system, with what to tell a person.
    static func failure(_ what: String, _ path: String, code: Int32) -> SyncError {
        // A full disk is transient: the download is retried later; nothing partial stays.
        let transient = code == ENOSPC || code == EDQUOT || code == EIO
        return SyncError(transient ? .serviceUnavailable : .invalidArguments,
                         "cannot \(what) \(path): \(String(cString: strerror(code)))")
    }

    static func failure(_ what: String, _ path: String, _ error: FileSystemError) -> SyncError {
        failure(what, path, code: error.code)
    }

    /// Creates the missing directories of `path`'s parent chain under `root`, refusing any
    /// component that is a symlink or not a directory (a remote path must not lead outside
    /// the folder). Returns the directories it created, outermost first; their names are
    /// durable — or, with `flush` false, become durable with the caller's next flush of the
    /// file system (a page's documents written ahead: one `syncfs` for them all).
    static func makeParents(of path: RelativePath, root: String, in fs: any FolderFileSystem, mode: UInt32 = 0o755,
                            flush: Bool = true) throws(SyncError) -> [RelativePath] {
        var created: [RelativePath] = []
        var current: RelativePath?
        for component in path.components.dropLast() {
            let next = current.map { RelativePath($0.string + "/" + component) } ?? RelativePath(String(component))
            let absolute = root + "/" + next.string
            if let found = try? fs.status(absolute) {
                guard found.kind == .directory else {
                    throw SyncError(.invalidArguments, "\(path) would be written through \(next), which is not a directory here")
                }
            } else {
                do { try fs.makeDirectory(absolute, mode: mode) } catch where error.code == EEXIST {} catch {
                    throw failure("create the folder", next.string, error)
                }
                if flush { try? fs.flushDirectory(current.map { root + "/" + $0.string } ?? root) }
                created.append(next)
            }
            current = next
        }
        return created
    }

    /// How this process's temporary names start: the prefix and a random tag of the process
    /// (from the random half of a record name). No other program's files start so.
    static let ownTemporaryPrefix = temporaryPrefix + RecordID.newName().suffix(8)
    private static let counter = Atomic<Int>(0)

    /// A name for a new temporary file: `ownTemporaryPrefix` and a counter. Unique within the
    /// process without a system call; callers create it exclusively (`createFile`,
    /// `makeSymlink`) and take another name if it exists.
    static func temporaryName() -> String {
        ownTemporaryPrefix + String(counter.add(1, ordering: .relaxed).newValue, radix: 36)
    }

    /// The directory part of an absolute path (`/a/b` for `/a/b/c`).
    static func directory(of target: String) -> Substring {
        guard let slash = target.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        return target[..<slash]
    }

    /// A new temporary file beside `target` (same directory, so a rename replaces
    /// atomically), for `size` bytes.
    static func createTemporary(beside target: String, size: Int, in fs: any FolderFileSystem) throws(SyncError) -> (file: any WritableFile, path: String) {
        let directory = String(Materializer.directory(of: target))
        for _ in 0..<8 {
            let path = directory + "/" + temporaryName()
            do { return (try fs.createFile(path, mode: 0o600, size: size), path) } catch where error.code == EEXIST {
                continue
            } catch {
                throw failure("create a temporary file in", directory, error)
            }
        }
        throw SyncError(.internalError, "could not find a free temporary name in \(directory)")
    }

    /// Writes `bytes` as the file at `target` (replacing what is there) through a temporary
    /// file beside it and a rename, with `mode` and `modified`; with `flush`, durable before
    /// the rename. Nothing is left behind on failure. `what` names the file for a person.
    static func writeFile(_ bytes: Data, at target: String, mode: UInt32, modified: Timestamp, flush: Bool, what: String,
                          in fs: any FolderFileSystem) throws(SyncError) {
        let (file, temporary) = try createTemporary(beside: target, size: bytes.count, in: fs)
        defer { file.close() }
        do throws(FileSystemError) {
            try file.append(bytes)
            try file.finish(mode: mode, modified: modified, flush: flush)
            file.close()
            try fs.rename(temporary, to: target)
        } catch {
            try? fs.removeFile(temporary)
            throw failure("write \(what)", target, error)
        }
    }

    /// Files of at least this size are written past the page cache (`DirectFileWriter`).
    static let directWriteThreshold = 1 << 20

    /// Renames `source` to `target` only if nothing is at `target`, atomically: returns 0, or
    /// the `errno` (`EEXIST` when something is there, `EINVAL` on a file system without
    /// `RENAME_NOREPLACE`).
    static func renameWithoutReplacing(_ source: String, _ target: String, in fs: any FolderFileSystem) -> Int32 {
        do { try fs.renameWithoutReplacing(source, to: target) } catch { return error.code }
        return 0
    }

    /// Moves `source` to `target` only if nothing is at `target`: returns 0, or the `errno`
    /// (`EEXIST` when something is there, `ENOENT` when `source` is gone).
    ///
    /// The move is made durable before this returns: the target's directory first, then the
    /// source's. A power cut then leaves the item at one of its names, never at neither
    /// (each directory's entries become durable on their own: a flush of the source's
    /// directory by anyone, the person's editor say, would otherwise make the item's absence
    /// there durable before its new name), and never back at the old name once the index has
    /// recorded the new one (the next scan would take that for a person's rename).
    static func moveIfFree(_ source: String, _ target: String, in fs: any FolderFileSystem) -> Int32 {
        do { try fs.renameIfFree(source, to: target) } catch { return error.code }
        let from = (source as NSString).deletingLastPathComponent, to = (target as NSString).deletingLastPathComponent
        try? fs.flushDirectory(to)
        if from != to { try? fs.flushDirectory(from) }
        return 0
    }
}
