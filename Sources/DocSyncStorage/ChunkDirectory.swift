import DocSyncCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A content-addressed directory of chunks: `ab/cd/abcd…` (two-level fan-out by the first
/// four hex digits), each file holding exactly the bytes whose SHA-256 is its name.
///
/// Writes go to `tmp/`, are fsynced, then renamed into place, so a chunk file is either
/// absent or complete, even across a crash, and several processes may store the same chunk
/// at once (the last rename wins with identical bytes). Reads verify the digest.
public struct ChunkDirectory: Sendable {
    public let root: URL

    public init(root: URL) throws(SyncError) {
        self.root = root
        do {
            try FileManager.default.createDirectory(at: root.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        } catch {
            throw SyncError(.internalError, "cannot create the chunk directory \(root.path): \(error.localizedDescription)")
        }
    }

    func path(of digest: SHA256Digest) -> String {
        let hex = digest.hex
        return root.path + "/" + hex.prefix(2) + "/" + hex.dropFirst(2).prefix(2) + "/" + hex
    }

    public func contains(_ digest: SHA256Digest) -> Bool {
        var info = stat()
        return stat(path(of: digest), &info) == 0
    }

    /// Stores `bytes` under `digest`, refusing bytes that do not hash to it.
    public func store(_ digest: SHA256Digest, bytes: Data) throws(SyncError) {
        guard bytes.count <= StorageLimits.maximumChunkSize else {
            throw SyncError(.limitExceeded, "chunk \(digest.shortHex) is \(bytes.count) bytes, more than the \(StorageLimits.maximumChunkSize) allowed", digest: digest)
        }
        guard SHA256Digest(hashing: bytes) == digest else {
            throw SyncError(.chunkDigestMismatch, "chunk bytes do not hash to \(digest.shortHex); nothing was stored", digest: digest)
        }
        if contains(digest) { return }
        let target = path(of: digest)
        let directory = String(target[..<target.lastIndex(of: "/")!])
        let temporary = root.path + "/tmp/" + digest.hex + "." + RecordID.newName()
        try posix("create \(directory)") { mkdirParents(directory) }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SyncError.posix("create \(temporary)", errno) }
        var ok = false
        defer {
            close(fd)
            if !ok { unlink(temporary) }
        }
        let writeError: Int32 = bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return 0
        }
        if writeError != 0 { throw SyncError.posix("write \(temporary)", writeError) }
        try posix("fsync \(temporary)") { fsync(fd) }
        try posix("rename into \(target)") { rename(temporary, target) }
        ok = true
    }

    /// Stores many chunks with two file-system flushes instead of one per chunk: every
    /// chunk is written to `tmp/`, the file system is synced, all are renamed into place,
    /// and it is synced again — so when this returns every chunk is durable, and a crash
    /// before that leaves each one either absent or complete. Refuses the whole batch
    /// (storing nothing) when any chunk is too large or does not hash to its digest.
    public func store(_ chunks: [ChunkUpload]) throws(SyncError) {
        for chunk in chunks {
            guard chunk.bytes.count <= StorageLimits.maximumChunkSize else {
                throw SyncError(.limitExceeded, "chunk \(chunk.digest.shortHex) is \(chunk.bytes.count) bytes, more than the \(StorageLimits.maximumChunkSize) allowed", digest: chunk.digest)
            }
            guard SHA256Digest(hashing: chunk.bytes) == chunk.digest else {
                throw SyncError(.chunkDigestMismatch, "chunk bytes do not hash to \(chunk.digest.shortHex); nothing was stored", digest: chunk.digest)
            }
        }
        var written: [(temporary: String, target: String)] = []
        defer { for entry in written { unlink(entry.temporary) } }
        for chunk in chunks where !contains(chunk.digest) {
            let target = path(of: chunk.digest)
            let directory = String(target[..<target.lastIndex(of: "/")!])
            let temporary = root.path + "/tmp/" + chunk.digest.hex + "." + RecordID.newName()
            try posix("create \(directory)") { mkdirParents(directory) }
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw SyncError.posix("create \(temporary)", errno) }
            written.append((temporary, target))
            let writeError = ChunkDirectory.writeAll(fd, chunk.bytes)
            close(fd)
            if writeError != 0 { throw SyncError.posix("write \(temporary)", writeError) }
        }
        guard !written.isEmpty else { return }
        try syncFileSystem()
        for entry in written {
            try posix("rename into \(entry.target)") { rename(entry.temporary, entry.target) }
        }
        written.removeAll()
        try syncFileSystem()
    }

    private func syncFileSystem() throws(SyncError) {
        let fd = open(root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw SyncError.posix("open \(root.path)", errno) }
        defer { close(fd) }
        try posix("sync the file system of \(root.path)") { docsync_syncfs(fd) }
    }

    private static func writeAll(_ fd: Int32, _ bytes: Data) -> Int32 {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return 0
        }
    }

    /// The verified bytes of a chunk. Throws `chunkNotFound` or `chunkCorrupt`.
    public func load(_ digest: SHA256Digest) throws(SyncError) -> Data {
        let target = path(of: digest)
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: target))
        } catch {
            if !contains(digest) { throw SyncError.chunkNotFound(digest) }
            throw SyncError(.internalError, "cannot read chunk \(digest.shortHex) at \(target): \(error.localizedDescription)", digest: digest)
        }
        guard SHA256Digest(hashing: data) == digest else {
            throw SyncError(.chunkCorrupt, "stored chunk \(digest.shortHex) does not match its digest (\(target)); it must be uploaded again", digest: digest)
        }
        return data
    }

    /// Number of chunks and their total size, by walking the directory.
    public func usage() -> (count: Int, bytes: Int64) {
        var count = 0
        var bytes: Int64 = 0
        let keys: [URLResourceKey] = [.fileSizeKey, .isRegularFileKey]
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: keys) else { return (0, 0) }
        for case let url as URL in walker {
            if url.lastPathComponent == "tmp" { walker.skipDescendants(); continue }
            guard let values = try? url.resourceValues(forKeys: Set(keys)), values.isRegularFile == true else { continue }
            count += 1
            bytes += Int64(values.fileSize ?? 0)
        }
        return (count, bytes)
    }

    /// Removes leftovers of writes interrupted by a crash: temporary files older than
    /// `age` seconds (younger ones may belong to another process writing right now).
    public func removeTemporaryFiles(olderThan age: TimeInterval = 3600) {
        let tmp = root.appendingPathComponent("tmp").path
        let cutoff = Date().timeIntervalSince1970 - age
        for name in (try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? [] {
            var info = stat()
            if stat(tmp + "/" + name, &info) == 0, Double(info.st_mtim.tv_sec) < cutoff {
                unlink(tmp + "/" + name)
            }
        }
    }
}

private func mkdirParents(_ path: String) -> Int32 {
    if mkdir(path, 0o755) == 0 || errno == EEXIST { return 0 }
    guard errno == ENOENT, let slash = path.lastIndex(of: "/") else { return -1 }
    if mkdirParents(String(path[..<slash])) != 0 { return -1 }
    return (mkdir(path, 0o755) == 0 || errno == EEXIST) ? 0 : -1
}

private func posix(_ what: String, _ call: () -> Int32) throws(SyncError) {
    if call() != 0 { throw SyncError.posix(what, errno) }
}

extension SyncError {
    /// A failed system call, classified: a full disk or quota is `quotaExceeded`, anything
    /// else `internalError`, with the call and the system's message.
    static func posix(_ what: String, _ code: Int32) -> SyncError {
        let reason = String(cString: strerror(code))
        if code == ENOSPC || code == EDQUOT {
            return SyncError(.quotaExceeded, "backend storage is full (\(what): \(reason)); free space on the backend")
        }
        return SyncError(.internalError, "\(what): \(reason)")
    }
}

/// Linux's `syncfs(2)` (flush one file system), which Glibc's Swift module does not export
/// without `_GNU_SOURCE`.
@_silgen_name("syncfs")
private func docsync_syncfs(_ fd: Int32) -> Int32
