import DocSyncCore
import Foundation

/// Every file-system call the engine makes, on absolute paths: the folder's and its state
/// directory's (version store, staging). The real one is `PosixFileSystem`; a simulation
/// gives the engine one in memory that can fail any call and "crash".
///
/// What a caller may rely on, as POSIX gives it: `status` never follows a final symlink;
/// renames within a directory are atomic; `renameIfFree` never replaces anything (it fails
/// with `EEXIST`); `createFile` never opens an existing path (`EEXIST`); nothing written is
/// durable before `WritableFile.finish(…, flush: true)`, `flushFileSystem` or, for
/// directory entries, `flushDirectory`. Errors carry the `errno` the call would have set.
public protocol FolderFileSystem: Sendable {
    /// The item at `path` (`lstat`); `nil` when nothing is there (or a parent is not a directory).
    func status(_ path: String) throws(FileSystemError) -> FileStat?
    /// The item `path` leads to, symlinks followed (`stat`); `nil` when it leads nowhere.
    func statusFollowingLinks(_ path: String) -> FileStat?
    /// The names in the directory at `path` (as bytes: they need not be UTF-8), without `.` and `..`.
    func entryNames(_ path: String) throws(FileSystemError) -> [[UInt8]]
    /// The entries of the directory at `path`, each with what `status` of its path gives
    /// (an error or `nil` for an entry that went meanwhile): one call where a file system
    /// can look names up in the open directory instead of from the root each time.
    func entriesWithStatus(_ path: String) throws(FileSystemError) -> [DirectoryEntry]
    /// The target of the symlink at `path`, as bytes.
    func linkTarget(_ path: String) throws(FileSystemError) -> [UInt8]
    /// Opens the regular file (or anything not a symlink) at `path` for reading; a final
    /// symlink is refused (`ELOOP`).
    func openForReading(_ path: String) throws(FileSystemError) -> any ReadableFile
    /// Creates a new file at `path` for writing (`EEXIST` when something is there). `size` is
    /// what the caller expects to write: a large file may then be written past the page cache.
    func createFile(_ path: String, mode: UInt32, size: Int) throws(FileSystemError) -> any WritableFile
    func makeDirectory(_ path: String, mode: UInt32) throws(FileSystemError)
    /// `mkdir -p`: every missing directory of `path`; nothing when it is a directory already.
    func makeDirectories(_ path: String) throws(FileSystemError)
    /// Removes an empty directory (`ENOTEMPTY` otherwise).
    func removeDirectory(_ path: String) throws(FileSystemError)
    /// Removes a file or a symlink.
    func removeFile(_ path: String) throws(FileSystemError)
    /// Renames, replacing whatever is at `target`.
    func rename(_ source: String, to target: String) throws(FileSystemError)
    /// Renames only if nothing is at `target` (`EEXIST` otherwise; `ENOENT` when `source` is gone).
    func renameIfFree(_ source: String, to target: String) throws(FileSystemError)
    /// Renames only if nothing is at `target`, atomically; `EINVAL` where the file system
    /// cannot promise that (the caller then decides).
    func renameWithoutReplacing(_ source: String, to target: String) throws(FileSystemError)
    func makeSymlink(_ target: String, at path: String) throws(FileSystemError)
    /// A second name for the file at `source` (`EXDEV`, `EPERM`, `EMLINK` where that cannot be).
    func hardLink(_ source: String, to target: String) throws(FileSystemError)
    /// A copy of the file at `source` at the new path `target`, its content durable (its
    /// name is not: flush the directory).
    func copyFile(_ source: String, to target: String) throws(FileSystemError)
    func setMode(_ path: String, _ mode: UInt32) throws(FileSystemError)
    /// Sets the modification time, never following a final symlink.
    func setModified(_ path: String, _ modified: Timestamp) throws(FileSystemError)
    /// Makes the entries of the directory at `path` durable.
    func flushDirectory(_ path: String) throws(FileSystemError)
    /// Makes everything written on the file system holding `path` durable at once; false
    /// when it could not (the caller then flushes file by file, or gives up).
    func flushFileSystem(containing path: String) -> Bool
}

/// A file open for reading.
public protocol ReadableFile: AnyObject {
    /// The open file's state (`fstat`).
    func status() throws(FileSystemError) -> FileStat
    /// Fills `buffer` from `offset`: fewer bytes only at the end of the file.
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(FileSystemError) -> Int
    func close()
}

extension ReadableFile {
    /// `length` bytes from `offset`, or `nil` when the file holds fewer.
    public func read(at offset: Int64, length: Int) throws(FileSystemError) -> Data? {
        var data = Data(count: length)
        var failure: FileSystemError?
        let got = data.withUnsafeMutableBytes { raw -> Int in
            do throws(FileSystemError) { return try read(at: offset, into: raw) } catch {
                failure = error
                return 0
            }
        }
        if let failure { throw failure }
        return got == length ? data : nil
    }
}

/// A new file being written, from its start.
public protocol WritableFile: AnyObject {
    func append(_ bytes: Data) throws(FileSystemError)
    /// Makes the file `size` bytes long without writing its tail (a hole reads as zeros and
    /// takes no space); call after the last `append`.
    func extend(to size: Int64) throws(FileSystemError)
    /// Writes out what is buffered, then sets the mode and modification time; with `flush`
    /// the content is durable when it returns.
    func finish(mode: UInt32, modified: Timestamp, flush: Bool) throws(FileSystemError)
    /// The open file's state (`fstat`).
    func status() throws(FileSystemError) -> FileStat
    func close()
}

/// One entry of a directory and its status (see `FolderFileSystem.entriesWithStatus`).
public struct DirectoryEntry: Sendable {
    /// The name as bytes: it need not be UTF-8.
    public var name: [UInt8]
    public var status: Result<FileStat?, FileSystemError>

    public init(name: [UInt8], status: Result<FileStat?, FileSystemError>) {
        self.name = name
        self.status = status
    }
}

extension FolderFileSystem {
    /// `entryNames` and `status` of each entry's path.
    public func entriesWithStatus(_ path: String) throws(FileSystemError) -> [DirectoryEntry] {
        try entryNames(path).map { name in
            let full = path + "/" + String(decoding: name, as: UTF8.self)
            return DirectoryEntry(name: name, status: Result { () throws(FileSystemError) in try status(full) })
        }
    }

    /// The whole content of the file at `path`, or `nil` when it cannot be read.
    public func contents(_ path: String) -> Data? {
        guard let file = try? openForReading(path) else { return nil }
        defer { file.close() }
        guard let size = try? file.status().size else { return nil }
        return try? file.read(at: 0, length: Int(size))
    }
}

/// A failed file-system call: the `errno` it set.
public struct FileSystemError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: Int32

    public init(_ code: Int32) { self.code = code }

    public var description: String { String(cString: strerror(code)) }
}
