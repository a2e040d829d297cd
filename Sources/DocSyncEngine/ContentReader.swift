import DocSyncCore
import DocSyncStorage
import Foundation

/// Reads a local file's content as an asset: chunks, manifest tree and digest, checking
/// that the file did not change while it was read.
public enum ContentReader {
    /// What reading one file found.
    public struct Content: Sendable {
        public var manifest: AssetManifest
        public var reference: AssetReference
        /// The file's state when the read began and ended (they were equal).
        public var stat: FileStat
    }

    /// Chunks and hashes the regular file at `path`.
    /// Throws `assetFileModified` when it changed while being read (read it again later),
    /// and `invalidArguments` with the system's reason when it cannot be read.
    public static func read(_ path: String) throws(SyncError) -> Content {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw SyncError(.invalidArguments, "cannot read: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let before: FileStat
        do { before = try FileStat.of(descriptor: fd) } catch { throw SyncError(.invalidArguments, "cannot examine: \(error)") }
        guard before.kind == .file else { throw SyncError(.assetFileModified, "no longer a regular file") }
        var readError: Int32 = 0
        let manifest = AssetChunker().chunk(read: { buffer in
            while true {
                let got = Glibc.read(fd, buffer.baseAddress, buffer.count)
                if got >= 0 { return got }
                if errno == EINTR { continue }
                readError = errno
                return 0
            }
        }, onChunk: { _, _ in })
        if readError != 0 { throw SyncError(.invalidArguments, "cannot read: \(String(cString: strerror(readError)))") }
        let after = (try? FileStat.of(descriptor: fd)) ?? before
        let now = (try? FileStat.of(path)) ?? nil
        guard after == before, now == before, manifest.size == before.size else {
            throw SyncError(.assetFileModified, "changed while being read; it will be read again when it settles")
        }
        return Content(manifest: manifest, reference: ManifestTree.build(manifest).reference, stat: before)
    }

    /// `length` bytes at `offset` of the file at `path`, or `nil` when they cannot be read
    /// in full (the file shrank or vanished).
    public static func readRange(_ path: String, offset: Int64, length: Int) -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return FileIO.read(fd, offset: offset, length: length)
    }

    /// The target of the symlink at `path`, verbatim.
    public static func linkTarget(_ path: String) throws(SyncError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(path, &buffer, buffer.count - 1)
        guard length >= 0 else { throw SyncError(.invalidArguments, "cannot read the link: \(String(cString: strerror(errno)))") }
        let bytes = buffer[..<length].map { UInt8(bitPattern: $0) }
        guard let target = String(validating: bytes, as: UTF8.self) else {
            throw SyncError(.invalidArguments, "the link's target is not valid UTF-8")
        }
        return target
    }
}
