import DocSyncCore
import DocSyncEngine
import Foundation
import Glibc
import Synchronization

/// The parts of not-local documents read so far (SPEC §14): one sparse file per version of
/// a document in a directory of the folder's state, filled a chunk at a time as reads ask.
///
/// What a caller may rely on: a read returns only bytes of chunks the source verified; it
/// fetches the chunks the read covers plus at most `readAhead` bytes of chunks after them,
/// each chunk once while its file is kept. Files are dropped, least recently used first,
/// beyond `keptFiles`, and all of them at start (what is not known to be whole is not trusted
/// across a restart).
final class PartialContent: Sendable {
    let directory: String
    let readAhead: Int64
    let keptFiles: Int
    private let files = Mutex<[String: PartialFile]>([:])
    private let clock = Atomic<UInt64>(0)

    init(directory: String, readAhead: Int64 = 4 << 20, keptFiles: Int = 64) throws {
        self.directory = directory
        self.readAhead = readAhead
        self.keptFiles = keptFiles
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// The kept file of `layout`'s version, made when new.
    func file(for layout: RemoteLayout) throws(SyncError) -> PartialFile {
        let key = layout.recordName + "-" + layout.contentDigest.hex
        let now = clock.add(1, ordering: .relaxed).newValue
        let (file, dropped): (PartialFile, [PartialFile]) = try files.withLock { files throws(SyncError) in
            if let file = files[key] {
                file.lastUse.store(now, ordering: .relaxed)
                return (file, [])
            }
            let file = try PartialFile(path: directory + "/" + key, layout: layout, use: now)
            files[key] = file
            var dropped: [PartialFile] = []
            while files.count > keptFiles, let oldest = files.min(by: { $0.value.lastUse.load(ordering: .relaxed) < $1.value.lastUse.load(ordering: .relaxed) }) {
                files[oldest.key] = nil
                dropped.append(oldest.value)
            }
            return (file, dropped)
        }
        for old in dropped { old.discard() }
        return file
    }

    /// The kept file of `layout`'s version when every one of its chunks is in it, else nil.
    func wholeFile(for layout: RemoteLayout) -> PartialFile? {
        files.withLock { $0[layout.recordName + "-" + layout.contentDigest.hex] }.flatMap { $0.presentCount == layout.chunks.count ? $0 : nil }
    }

    /// The record names of documents opened for reading, by the path they were opened at.
    private let opened = Mutex<[String: String]>([:])

    /// Remembers that the document `recordName` was opened for reading at `path`.
    func noteOpened(_ recordName: String, at path: String) { opened.withLock { $0[path] = recordName } }

    /// The record name of the document last opened for reading at `path`.
    func recordName(openedAt path: String) -> String? { opened.withLock { $0[path] } }

    /// The bytes the kept files take on disk.
    var allocatedBytes: Int64 { files.withLock { files in files.values.reduce(0) { $0 + $1.allocatedBytes } } }

    /// Drops every kept file but those in `open`; returns the bytes freed.
    func dropAll(except open: Set<ObjectIdentifier>) -> Int64 {
        let dropped = files.withLock { files -> [PartialFile] in
            let gone = files.filter { !open.contains(ObjectIdentifier($0.value)) }
            for key in gone.keys { files[key] = nil }
            return Array(gone.values)
        }
        var freed: Int64 = 0
        for file in dropped {
            freed += file.allocatedBytes
            file.discard()
        }
        return freed
    }

    /// How much of the document named `recordName` is kept: nothing, a part, or all of it
    /// (the most of any version kept).
    func share(of recordName: String) -> KeptShare {
        files.withLock { files in
            files.filter { $0.key.hasPrefix(recordName + "-") }.values.map { file -> KeptShare in
                let present = file.presentCount
                return present == 0 ? .none : present == file.layout.chunks.count ? .all : .part
            }.max() ?? .none
        }
    }

    enum KeptShare: Int, Comparable {
        case none, part, all
        static func < (a: KeptShare, b: KeptShare) -> Bool { a.rawValue < b.rawValue }
    }
}

/// One version of a document, partly here: a sparse file of its size and which chunks are in it.
final class PartialFile: Sendable {
    let path: String
    let layout: RemoteLayout
    let lastUse: Atomic<UInt64>
    private let descriptor: Int32
    private let present: Mutex<[Bool]>

    init(path: String, layout: RemoteLayout, use: UInt64) throws(SyncError) {
        self.path = path
        self.layout = layout
        self.lastUse = Atomic(use)
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SyncError(.internalError, "cannot make the cache file \(path): \(String(cString: strerror(errno)))") }
        guard ftruncate(fd, off_t(layout.size)) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw SyncError(.internalError, "cannot size the cache file \(path): \(String(cString: strerror(code)))")
        }
        self.descriptor = fd
        self.present = Mutex(Array(repeating: false, count: layout.chunks.count))
    }

    deinit { Glibc.close(descriptor) }

    /// The bytes this file takes on disk (its holes take none).
    var allocatedBytes: Int64 {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return 0 }
        return Int64(status.st_blocks) * 512
    }

    var presentCount: Int { present.withLock { $0.reduce(0) { $0 + ($1 ? 1 : 0) } } }

    /// Up to `size` bytes at `offset`, fetching through `source` what is not here yet: the
    /// chunks covering the range and those within `readAhead` bytes after it.
    func read(offset: Int64, size: Int, readAhead: Int64, from source: any OnDemandSource) async throws(SyncError) -> Data {
        let end = min(offset + Int64(size), layout.size)
        guard offset < end else { return Data() }
        let covering = layout.chunks(covering: offset, end)
        let ahead = layout.chunks(covering: end, end + readAhead)
        let wanted = covering.lowerBound..<max(covering.upperBound, ahead.upperBound)
        let missing = present.withLock { present in wanted.filter { !present[$0] } }
        if !missing.isEmpty {
            let chunks = missing.map { layout.chunks[$0] }
            let fetched = try await source.remoteChunks(chunks)
            for index in missing {
                let chunk = layout.chunks[index]
                guard let bytes = fetched[chunk.digest], bytes.count == chunk.length else {
                    throw SyncError(.chunkNotFound, "chunk \(chunk.digest.shortHex) of a file being read did not come", digest: chunk.digest)
                }
                try write(bytes, at: layout.offsets[index])
            }
            present.withLock { present in for index in missing { present[index] = true } }
        }
        var data = Data(count: Int(end - offset))
        let got = data.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
        guard got == data.count else { throw SyncError(.internalError, "cannot read the cache file \(path)") }
        return data
    }

    private func write(_ bytes: Data, at offset: Int64) throws(SyncError) {
        let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
        guard written == bytes.count else {
            throw SyncError(.internalError, "cannot write the cache file \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Removes the file (its descriptor closes when the last reader lets go).
    func discard() { unlink(path) }
}
