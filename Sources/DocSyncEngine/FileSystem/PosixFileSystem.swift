import DocSyncCore
import DocSyncPlatform
import DocSyncStorage
import Foundation

/// `FolderFileSystem` on the real file system, through the system calls themselves.
///
/// Large new files are written past the page cache (`DirectFileWriter`, from
/// `Materializer.directWriteThreshold` bytes): the engine does not read them back soon.
public struct PosixFileSystem: FolderFileSystem {
    public init() {}

    public func status(_ path: String) throws(FileSystemError) -> FileStat? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return nil }
            throw FileSystemError(code)
        }
        return FileStat(info)
    }

    public func statusFollowingLinks(_ path: String) -> FileStat? {
        var info = stat()
        return stat(path, &info) == 0 ? FileStat(info) : nil
    }

    public func entryNames(_ path: String) throws(FileSystemError) -> [[UInt8]] {
        try entries(of: path) { name, _ in name }
    }

    /// Each entry's status by `fstatat` on the open directory: no path walk from the root.
    public func entriesWithStatus(_ path: String) throws(FileSystemError) -> [DirectoryEntry] {
        try entries(of: path) { name, fd in
            var info = stat()
            guard fstatat(fd, name.map { CChar(bitPattern: $0) } + [0], &info, AT_SYMLINK_NOFOLLOW) == 0 else {
                let code = errno
                return DirectoryEntry(name: name, status: code == ENOENT || code == ENOTDIR ? .success(nil) : .failure(FileSystemError(code)))
            }
            return DirectoryEntry(name: name, status: .success(FileStat(info)))
        }
    }

    /// `make` of each name in the directory at `path` but `.` and `..`, given the open
    /// directory's descriptor.
    private func entries<T>(of path: String, _ make: ([UInt8], Int32) -> T) throws(FileSystemError) -> [T] {
        guard let directory = opendir(path) else { throw FileSystemError(errno) }
        defer { closedir(directory) }
        let fd = dirfd(directory)
        var entries: [T] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix(while: { $0 != 0 })) }
            if name == [0x2e] || name == [0x2e, 0x2e] { continue }
            entries.append(make(name, fd))
        }
        return entries
    }

    public func linkTarget(_ path: String) throws(FileSystemError) -> [UInt8] {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(path, &buffer, buffer.count - 1)
        guard length >= 0 else { throw FileSystemError(errno) }
        return buffer[..<length].map { UInt8(bitPattern: $0) }
    }

    public func openForReading(_ path: String) throws(FileSystemError) -> any ReadableFile {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw FileSystemError(errno) }
        return PosixReadableFile(fd: fd)
    }

    public func createFile(_ path: String, mode: UInt32, size: Int) throws(FileSystemError) -> any WritableFile {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(mode))
        guard fd >= 0 else { throw FileSystemError(errno) }
        return PosixWritableFile(fd: fd, size: size)
    }

    public func makeDirectory(_ path: String, mode: UInt32) throws(FileSystemError) {
        guard mkdir(path, mode_t(mode)) == 0 else { throw FileSystemError(errno) }
    }

    public func makeDirectories(_ path: String) throws(FileSystemError) {
        do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
            throw FileSystemError(((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError).map { Int32($0.code) } ?? EIO)
        }
    }

    public func removeDirectory(_ path: String) throws(FileSystemError) {
        guard rmdir(path) == 0 else { throw FileSystemError(errno) }
    }

    public func removeFile(_ path: String) throws(FileSystemError) {
        guard unlink(path) == 0 else { throw FileSystemError(errno) }
    }

    public func rename(_ source: String, to target: String) throws(FileSystemError) {
        guard Glibc.rename(source, target) == 0 else { throw FileSystemError(errno) }
    }

    public func renameWithoutReplacing(_ source: String, to target: String) throws(FileSystemError) {
        guard docsync_renameat2(AT_FDCWD, source, AT_FDCWD, target, 1 /* RENAME_NOREPLACE */) == 0 else { throw FileSystemError(errno) }
    }

    public func renameIfFree(_ source: String, to target: String) throws(FileSystemError) {
        do throws(FileSystemError) {
            try renameWithoutReplacing(source, to: target)
        } catch where error.code == EINVAL {
            // No RENAME_NOREPLACE here: look, then rename (only here can something created
            // at `target` in between be replaced).
            if try status(target) != nil { throw FileSystemError(EEXIST) }
            try rename(source, to: target)
        }
    }

    public func makeSymlink(_ target: String, at path: String) throws(FileSystemError) {
        guard symlink(target, path) == 0 else { throw FileSystemError(errno) }
    }

    public func hardLink(_ source: String, to target: String) throws(FileSystemError) {
        guard link(source, target) == 0 else { throw FileSystemError(errno) }
    }

    public func copyFile(_ source: String, to target: String) throws(FileSystemError) {
        do { try FileManager.default.copyItem(atPath: source, toPath: target) } catch {
            throw FileSystemError(((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError).map { Int32($0.code) } ?? EIO)
        }
        let fd = open(target, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError(errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw FileSystemError(errno) }
    }

    public func setMode(_ path: String, _ mode: UInt32) throws(FileSystemError) {
        guard chmod(path, mode_t(mode)) == 0 else { throw FileSystemError(errno) }
    }

    public func setModified(_ path: String, _ modified: Timestamp) throws(FileSystemError) {
        var times = PosixFileSystem.times(modified)
        guard utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW) == 0 else { throw FileSystemError(errno) }
    }

    public func flushDirectory(_ path: String) throws(FileSystemError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError(errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw FileSystemError(errno) }
    }

    public func flushFileSystem(containing path: String) -> Bool {
        FileIO.flushFileSystem(of: path)
    }

    /// Access and modification time both `modified`, as `utimensat` and `futimens` take them.
    static func times(_ modified: Timestamp) -> [timespec] {
        let (seconds, nanoseconds) = modified.secondsAndNanoseconds
        return [timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds)), timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds))]
    }
}

/// A file descriptor open for reading.
final class PosixReadableFile: ReadableFile {
    private let fd: Int32
    private var closed = false

    init(fd: Int32) { self.fd = fd }

    deinit { close() }

    func status() throws(FileSystemError) -> FileStat {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileSystemError(errno) }
        return FileStat(info)
    }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(FileSystemError) -> Int {
        let (count, error) = FileIO.read(fd, offset: offset, into: buffer)
        if error != 0 { throw FileSystemError(error) }
        return count
    }

    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }
}

/// A new file's descriptor, written through a `DirectFileWriter`.
final class PosixWritableFile: WritableFile {
    private let fd: Int32
    private let writer: DirectFileWriter
    private var closed = false

    init(fd: Int32, size: Int) {
        self.fd = fd
        writer = DirectFileWriter(fd: fd, capacity: max(1, min(size, DirectFileWriter.defaultCapacity)),
                                  direct: size >= Materializer.directWriteThreshold)
    }

    deinit { close() }

    func append(_ bytes: Data) throws(FileSystemError) {
        let code = writer.append(bytes)
        if code != 0 { throw FileSystemError(code) }
    }

    func extend(to size: Int64) throws(FileSystemError) {
        let code = writer.finish()
        if code != 0 { throw FileSystemError(code) }
        guard ftruncate(fd, off_t(size)) == 0 else { throw FileSystemError(errno) }
    }

    func finish(mode: UInt32, modified: Timestamp, flush: Bool) throws(FileSystemError) {
        let code = writer.finish()
        if code != 0 { throw FileSystemError(code) }
        guard fchmod(fd, mode_t(mode)) == 0 else { throw FileSystemError(errno) }
        var times = PosixFileSystem.times(modified)
        guard futimens(fd, &times) == 0 else { throw FileSystemError(errno) }
        if flush { guard fsync(fd) == 0 else { throw FileSystemError(errno) } }
    }

    func status() throws(FileSystemError) -> FileStat {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileSystemError(errno) }
        return FileStat(info)
    }

    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }
}

/// Linux's `renameat2(2)`, which Glibc's Swift module does not export without `_GNU_SOURCE`.
@_silgen_name("renameat2")
private func docsync_renameat2(_ oldDirectory: Int32, _ oldPath: UnsafePointer<CChar>, _ newDirectory: Int32, _ newPath: UnsafePointer<CChar>, _ flags: UInt32) -> Int32
