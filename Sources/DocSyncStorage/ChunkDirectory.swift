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
