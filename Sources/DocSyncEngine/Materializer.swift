import DocSyncCore
import DocSyncStorage
import Foundation
import Synchronization

/// Low-level writes into the folder: temporary files, parent directories that never pass
/// through a symlink, atomic replacement.
enum Materializer {
    /// Every temporary file the daemon makes starts with this (and is ignored by the watcher rules).
    static let temporaryPrefix = IgnoreRules.temporaryFilePrefix

    /// An error of the local file system, with what to tell a person.
    static func failure(_ what: String, _ path: String, code: Int32 = errno) -> SyncError {
        // A full disk is transient: the download is retried later; nothing partial stays.
        let transient = code == ENOSPC || code == EDQUOT || code == EIO
        return SyncError(transient ? .serviceUnavailable : .invalidArguments,
                         "cannot \(what) \(path): \(String(cString: strerror(code)))")
    }

    /// Creates the missing directories of `path`'s parent chain under `root`, refusing any
    /// component that is a symlink or not a directory (a remote path must not lead outside
    /// the folder). Returns the directories it created, outermost first.
    static func makeParents(of path: RelativePath, root: String, mode: mode_t = 0o755) throws(SyncError) -> [RelativePath] {
        var created: [RelativePath] = []
        var current: RelativePath?
        for component in path.components.dropLast() {
            let next = current.map { RelativePath($0.string + "/" + component) } ?? RelativePath(String(component))
            let absolute = root + "/" + next.string
            var st = stat()
            if lstat(absolute, &st) == 0 {
                guard st.st_mode & S_IFMT == S_IFDIR else {
                    throw SyncError(.invalidArguments, "\(path) would be written through \(next), which is not a directory here")
                }
            } else {
                guard mkdir(absolute, mode) == 0 || errno == EEXIST else { throw failure("create the folder", next.string) }
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
    /// process without a system call; callers create it exclusively (`O_EXCL`, `symlink`) and
    /// take another name if it exists.
    static func temporaryName() -> String {
        ownTemporaryPrefix + String(counter.add(1, ordering: .relaxed).newValue, radix: 36)
    }

    /// The directory part of an absolute path (`/a/b` for `/a/b/c`).
    static func directory(of target: String) -> Substring {
        guard let slash = target.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        return target[..<slash]
    }

    /// A new temporary file beside `target` (same directory, so a rename replaces atomically).
    static func createTemporary(beside target: String) throws(SyncError) -> (fd: Int32, path: String) {
        let directory = String(Materializer.directory(of: target))
        for _ in 0..<8 {
            let path = directory + "/" + temporaryName()
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 { return (fd, path) }
            if errno != EEXIST { throw failure("create a temporary file in", directory) }
        }
        throw SyncError(.internalError, "could not find a free temporary name in \(directory)")
    }

    /// Files of at least this size are written past the page cache (`DirectFileWriter`).
    static let directWriteThreshold = 1 << 20

    static func writeAll(_ fd: Int32, _ data: Data, path: String) throws(SyncError) {
        let code = FileIO.writeAll(fd, data)
        if code != 0 { throw failure("write", path, code: code) }
    }

    /// Sets the mode and modification time of an open file, then (with `flush`) flushes it to disk.
    static func finish(_ fd: Int32, mode: UInt32, modified: Timestamp, flush: Bool = true, path: String) throws(SyncError) {
        guard fchmod(fd, mode_t(mode)) == 0 else { throw failure("set the mode of", path) }
        let (seconds, nanoseconds) = modified.secondsAndNanoseconds
        var times = [timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds)), timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds))]
        guard futimens(fd, &times) == 0 else { throw failure("set the time of", path) }
        if flush { guard fsync(fd) == 0 else { throw failure("flush", path) } }
    }

    /// Renames `source` to `target` only if nothing is at `target` (`renameat2` with
    /// `RENAME_NOREPLACE`): returns 0, or the `errno` (`EEXIST` when something is there,
    /// `EINVAL` on a file system without the flag).
    static func renameWithoutReplacing(_ source: String, _ target: String) -> Int32 {
        docsync_renameat2(AT_FDCWD, source, AT_FDCWD, target, 1 /* RENAME_NOREPLACE */) == 0 ? 0 : errno
    }

    /// Moves `source` to `target` only if nothing is at `target`: returns 0, or the `errno`
    /// (`EEXIST` when something is there, `ENOENT` when `source` is gone). Where the file
    /// system lacks `RENAME_NOREPLACE` it looks first and then renames, so only there can
    /// something created at `target` in between be replaced.
    static func moveIfFree(_ source: String, _ target: String) -> Int32 {
        let code = renameWithoutReplacing(source, target)
        guard code == EINVAL else { return code }
        var st = stat()
        if lstat(target, &st) == 0 { return EEXIST }
        return rename(source, target) == 0 ? 0 : errno
    }

    /// Sets a path's modification time without following a final symlink.
    static func setModified(_ path: String, _ modified: Timestamp) {
        let (seconds, nanoseconds) = modified.secondsAndNanoseconds
        var times = [timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds)), timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds))]
        utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW)
    }
}

/// Linux's `renameat2(2)`, which Glibc's Swift module does not export without `_GNU_SOURCE`.
@_silgen_name("renameat2")
private func docsync_renameat2(_ oldDirectory: Int32, _ oldPath: UnsafePointer<CChar>, _ newDirectory: Int32, _ newPath: UnsafePointer<CChar>, _ flags: UInt32) -> Int32
