import DocSyncCore
import DocSyncPlatform
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
        /// The whole content, kept when the file was no larger than the caller's `keepingUpTo`:
        /// exactly the bytes the manifest describes, so they can be uploaded without reading
        /// the file again.
        public var bytes: Data?
    }

    /// Chunks and hashes the regular file at `path` with `chunker` (an encrypted folder's
    /// cuts and names chunks with its epoch's keys); keeps its bytes in `Content.bytes` when
    /// it is at most `keepingUpTo` bytes long.
    /// Throws `assetFileModified` when it changed while being read (read it again later),
    /// and `invalidArguments` with the system's reason when it cannot be read.
    public static func read(_ path: String, keepingUpTo keepLimit: Int64 = 0, chunker: AssetChunker = AssetChunker(),
                            in fs: any FolderFileSystem) throws(SyncError) -> Content {
        let file: any ReadableFile
        do { file = try fs.openForReading(path) } catch { throw SyncError(.invalidArguments, "cannot read: \(error)") }
        defer { file.close() }
        let before: FileStat
        do { before = try file.status() } catch { throw SyncError(.invalidArguments, "cannot examine: \(error)") }
        guard before.kind == .file else { throw SyncError(.assetFileModified, "no longer a regular file") }
        // A file to keep (and any small one) is read in one call into a buffer of its own
        // size; others stream through the chunker's 1 MiB buffer.
        if before.size <= keepLimit || before.size <= 64 << 10 {
            let bytes = try readWhole(file, expected: Int(before.size))
            let manifest = bytes.withUnsafeBytes { chunker.chunk($0) }
            try checkUnchanged(file, path, before, manifest, fs)
            return Content(manifest: manifest, reference: ManifestTree.build(manifest).reference, stat: before,
                           bytes: before.size <= keepLimit ? bytes : nil)
        }
        var readError: FileSystemError?
        var position: Int64 = 0
        let manifest = chunker.chunk(read: { buffer in
            do throws(FileSystemError) {
                let got = try file.read(at: position, into: buffer)
                position += Int64(got)
                return got
            } catch {
                readError = error
                return 0
            }
        }, onChunk: { _, _ in })
        if let readError { throw SyncError(.invalidArguments, "cannot read: \(readError)") }
        try checkUnchanged(file, path, before, manifest, fs)
        return Content(manifest: manifest, reference: ManifestTree.build(manifest).reference, stat: before, bytes: nil)
    }

    /// The file's state at the end of a read must be what it was at the start.
    private static func checkUnchanged(_ file: any ReadableFile, _ path: String, _ before: FileStat, _ manifest: AssetManifest,
                                       _ fs: any FolderFileSystem) throws(SyncError) {
        let after = (try? file.status()) ?? before
        let now = (try? fs.status(path)) ?? nil
        guard after == before, now == before, manifest.size == before.size else {
            throw SyncError(.assetFileModified, "changed while being read; it will be read again when it settles")
        }
    }

    /// Exactly `expected` bytes from the start of `fd`; `assetFileModified` when the file holds
    /// fewer or more, `invalidArguments` when it cannot be read.
    private static func readWhole(_ file: any ReadableFile, expected: Int) throws(SyncError) -> Data {
        // One read of size + 1 bytes: a file that grew meanwhile shows up as a longer read.
        var got = 0
        var readError: FileSystemError?
        let fill = { (raw: UnsafeMutableRawBufferPointer) -> Int in
            do throws(FileSystemError) { got = try file.read(at: 0, into: raw) } catch { readError = error }
            return min(got, expected)
        }
        // A large file's bytes go to a pooled buffer, which costs no fresh pages once warm.
        let data = expected + 1 >= BufferPool.pooledMinimum
            ? BufferPool.shared.data(count: expected + 1, fill: fill)
            : { var data = Data(count: expected + 1); let count = data.withUnsafeMutableBytes(fill); return data.prefix(count) }()
        if let readError { throw SyncError(.invalidArguments, "cannot read: \(readError)") }
        guard got == expected else {
            throw SyncError(.assetFileModified, "changed while being read; it will be read again when it settles")
        }
        return data
    }

    /// `length` bytes at `offset` of the file at `path`, or `nil` when they cannot be read
    /// in full (the file shrank or vanished).
    public static func readRange(_ path: String, offset: Int64, length: Int, in fs: any FolderFileSystem) -> Data? {
        guard let file = try? fs.openForReading(path) else { return nil }
        defer { file.close() }
        // A large range goes to a pooled buffer, which costs no fresh pages once warm.
        guard length >= BufferPool.pooledMinimum else { return (try? file.read(at: offset, length: length)) ?? nil }
        let data = BufferPool.shared.data(count: length) { raw -> Int in
            do throws(FileSystemError) { return try file.read(at: offset, into: raw) } catch { return 0 }
        }
        return data.count == length ? data : nil
    }

    /// The target of the symlink at `path`, verbatim.
    public static func linkTarget(_ path: String, in fs: any FolderFileSystem) throws(SyncError) -> String {
        let bytes: [UInt8]
        do { bytes = try fs.linkTarget(path) } catch { throw SyncError(.invalidArguments, "cannot read the link: \(error)") }
        guard let target = String(validating: bytes, as: UTF8.self) else {
            throw SyncError(.invalidArguments, "the link's target is not valid UTF-8")
        }
        return target
    }
}
