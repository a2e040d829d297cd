import DocSyncCore
import DocSyncPlatform
import Foundation
import GRDB

#if canImport(Glibc)
import Glibc
#endif

/// The embedded backend's chunks: appended to pack files under `packs/` and indexed in the
/// backend's database (`chunk`: digest → pack number, offset, length, and for a sealed chunk
/// the SHA-256 of its body, found through the digest's `indexKey`; `pack`: number → file name).
///
/// A store writes its new chunks into a fresh pack file, flushes it (one fsync for the
/// whole batch), and only then indexes them, in one transaction: a chunk is either indexed
/// and durable, or not stored at all; a crash leaves at most an unindexed pack, which is
/// harmless. Several processes may store at once (each writes its own packs; the index
/// keeps the first copy of a chunk). Each chunk row carries when it was stored (or stored
/// again), for the collector's grace period (`GarbageCollector`), which also compacts packs
/// that are mostly garbage; readers follow a chunk to its new pack. Reads verify the digest (a
/// sealed chunk's: its body digest), so "not stored" (`chunkNotFound`) and "stored but damaged"
/// (`chunkCorrupt`) stay distinct.
struct PackStore: Sendable {
    let root: URL
    let pool: DatabasePool

    init(root: URL, pool: DatabasePool) throws(SyncError) {
        self.root = root
        self.pool = pool
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        } catch {
            throw SyncError(.internalError, "cannot create the pack directory \(root.path): \(error.localizedDescription)")
        }
    }

    /// Which of `digests` are not stored.
    ///
    /// Probed through `DatabasePool.readOnWriter`: between this process's own stores a
    /// reader's cache starts cold (37,000 page reads for 10,000 files, 3,400 this way).
    func missing(_ digests: [SHA256Digest]) throws(SyncError) -> Set<SHA256Digest> {
        guard !digests.isEmpty else { return [] }
        do {
            return try pool.readOnWriter { db in
                // One cached statement probed per digest: cheaper than preparing an `IN (…)`
                // list of hundreds of parameters for every call.
                let present = try db.directStatement(sql: PackStore.presenceQuery)
                var missing = Set<SHA256Digest>()
                for digest in Set(digests) {
                    present.bind(1, digest.indexKey)
                    present.bind(2, digest)
                    if try !present.yieldsRow() { missing.insert(digest) }
                }
                return missing
            }
        } catch {
            throw LocalBackend.map(error, "look up chunks")
        }
    }

    /// Stores `chunks`, refusing the whole batch (storing nothing) when any is too large or
    /// does not hash to its digest (a sealed chunk's: its body digest), or when it would take
    /// the store past `byteLimit` bytes (see `ChunkBatchWriter.commit`). Chunks already
    /// stored are not written again.
    func store(_ chunks: [ChunkUpload], byteLimit: Int64?) throws(SyncError) {
        let batch = ChunkBatchWriter(packs: self)
        do throws(SyncError) {
            try batch.add(chunks)
            try batch.commit(byteLimit: byteLimit)
        } catch {
            batch.abort()
            throw error
        }
    }

    /// The verified bytes of a chunk, read as `read(_:)` reads. Throws `chunkNotFound` or `chunkCorrupt`.
    func load(_ digest: SHA256Digest) throws(SyncError) -> Data {
        try load([digest])[digest]!
    }

    /// Where a stored chunk lies: its pack's file name, the offset and the length; and what
    /// its bytes must hash to when that is not its digest (a sealed chunk's body digest).
    typealias Place = (pack: String, offset: Int64, length: Int, bodyDigest: SHA256Digest?)

    /// Where each of `digests` that is stored lies (the others are left out), looked up in one
    /// read transaction.
    func places(of digests: [SHA256Digest]) throws(SyncError) -> [SHA256Digest: Place] {
        do {
            return try pool.read { db in try PackStore.places(of: digests, db) }
        } catch {
            throw LocalBackend.map(error, "look up \(digests.count) chunks")
        }
    }

    /// Where each of `digests` that is stored lies, as `db` sees it.
    static func places(of digests: [SHA256Digest], _ db: Database) throws -> [SHA256Digest: Place] {
        var places: [SHA256Digest: Place] = [:]
        let place = try db.directStatement(sql: PackStore.placeQuery)
        for digest in digests where places[digest] == nil {
            place.bind(1, digest.indexKey)
            place.bind(2, digest)
            places[digest] = try place.firstRow { ($0.text(0), $0.integer(1), Int($0.integer(2)), $0.digest(3)) }
        }
        return places
    }

    /// The verified bytes of several chunks: looked up in one read transaction, then read as
    /// `read(_:)` does. Throws `chunkNotFound` for a chunk that is not stored, and the errors
    /// of `read(_:)`.
    func load(_ digests: [SHA256Digest]) throws(SyncError) -> [SHA256Digest: Data] {
        let unique = Array(Set(digests))
        let places = try places(of: unique)
        if let absent = unique.first(where: { places[$0] == nil }) { throw SyncError.chunkNotFound(absent) }
        return try read(places)
    }

    /// The verified bytes of the chunks at `places`: each pack opened once, adjacent chunks
    /// read together. A chunk's `Data` may be a slice of a larger read (its indices need not
    /// start at 0). Throws `chunkCorrupt` for the first chunk (by place in its pack) that is
    /// not right.
    ///
    /// A pack that is gone was compacted (its chunks copied to another pack) or emptied by a
    /// collection since `places` were looked up, in this process or another: its chunks are
    /// looked up again and read where they are now; one no longer indexed is `chunkNotFound`.
    ///
    /// Reads of `DirectFileReader.minimumLength` bytes and more go past the page cache:
    /// packs are written past it too, so they are not in it, and filling it costs more than
    /// the read (see `DirectFileReader`). Smaller ones go through it.
    ///
    /// With `relocating` false (the collector, which alone moves chunks, reading inside a
    /// transaction) a pack that is gone is `chunkCorrupt` at once.
    ///
    /// With `plainUnverified`, a plain chunk's bytes are handed out as read, not hashed again:
    /// for a reader that verifies every chunk itself (docsync's HTTP client). A sealed chunk
    /// is still checked against its body digest, and a short read is still `chunkCorrupt`.
    func read(_ places: [SHA256Digest: Place], relocating: Bool = true, plainUnverified: Bool = false) throws(SyncError) -> [SHA256Digest: Data] {
        var found: [SHA256Digest: Data] = [:]
        var pending = places
        for attempt in 1 ... PackStore.relocationAttempts {
            let moved = try read(pending, plainUnverified: plainUnverified, into: &found)
            if moved.isEmpty { break }
            guard relocating, attempt < PackStore.relocationAttempts else {
                throw SyncError(.chunkCorrupt, "the packs of \(moved.count) chunks keep disappearing under \(root.path); its chunks must be uploaded again", digest: moved[0])
            }
            pending = try self.places(of: moved)
            if let gone = moved.first(where: { pending[$0] == nil }) { throw SyncError.chunkNotFound(gone) }
        }
        return found
    }

    /// How many times `read(_:)` looks for chunks whose pack went away while it read.
    static let relocationAttempts = 4

    /// Reads the chunks at `places` into `found`; returns those whose pack file is gone.
    private func read(_ places: [SHA256Digest: Place], plainUnverified: Bool, into found: inout [SHA256Digest: Data]) throws(SyncError) -> [SHA256Digest] {
        var moved: [SHA256Digest] = []
        let byPack = Dictionary(grouping: places, by: { $0.value.pack })
        for (pack, entries) in byPack {
            let path = root.path + "/" + pack
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                if errno == ENOENT {
                    moved += entries.map(\.key)
                    continue
                }
                throw SyncError(.chunkCorrupt, "pack \(path) cannot be opened (\(String(cString: strerror(errno)))); its chunks must be uploaded again", digest: entries[0].key)
            }
            defer { close(fd) }
            var direct: DirectFileReader?
            // Chunks lying one after the other (a file's chunks usually do) are read in one
            // call, and each is handed out as a slice of that read.
            let sorted = entries.sorted { $0.value.offset < $1.value.offset }
            var first = 0
            while first < sorted.count {
                let start = sorted[first].value.offset
                var end = first + 1, length = sorted[first].value.length
                while end < sorted.count, sorted[end].value.offset == start + Int64(length), length + sorted[end].value.length <= PackStore.readRunLimit {
                    length += sorted[end].value.length
                    end += 1
                }
                let run = sorted[first..<end]
                first = end
                let bytes: Data?
                if length >= DirectFileReader.minimumLength {
                    if direct == nil { direct = DirectFileReader(path: path) }
                    bytes = direct!.read(offset: start, length: length) ?? FileIO.read(fd, offset: start, length: length)
                } else {
                    bytes = run.count > 1 ? FileIO.read(fd, offset: start, length: length) : nil
                }
                guard let bytes else {
                    // One chunk, or a run cut short (the chunk that cannot be read is named).
                    for (digest, place) in run {
                        found[digest] = try PackStore.verified(FileIO.read(fd, offset: place.offset, length: place.length), digest: digest,
                                                               bodyDigest: place.bodyDigest, plainUnverified: plainUnverified,
                                                               path: path, offset: place.offset)
                    }
                    continue
                }
                for (digest, place) in run {
                    let from = bytes.startIndex + Int(place.offset - start)
                    found[digest] = try PackStore.verified(bytes[from..<from + place.length], digest: digest, bodyDigest: place.bodyDigest,
                                                           plainUnverified: plainUnverified, path: path, offset: place.offset)
                }
            }
        }
        return moved
    }

    /// The most bytes read in one call by `read(_:)` for a run of adjacent chunks: 4 MiB less
    /// two blocks, so that a direct read, widened to whole blocks, still fits a 4 MiB buffer.
    static let readRunLimit = (4 << 20) - 2 * DirectFileWriter.blockSize

    /// `bytes` when they were read and hash to `bodyDigest` (a sealed chunk) or `digest` (a
    /// plain one, not hashed when `plainUnverified`); otherwise `chunkCorrupt`.
    private static func verified(_ bytes: Data?, digest: SHA256Digest, bodyDigest: SHA256Digest?, plainUnverified: Bool,
                                 path: String, offset: Int64) throws(SyncError) -> Data {
        let hashing = bodyDigest != nil || !plainUnverified
        guard let bytes, !hashing || SHA256Digest(hashing: bytes) == (bodyDigest ?? digest) else {
            throw SyncError.storedChunkCorrupt(digest, sealed: bodyDigest != nil, at: "\(path) at \(offset)")
        }
        return bytes
    }

    /// Where a chunk lies: its pack's name, the offset, the length and a sealed chunk's body
    /// digest (run as a `DirectStatement`; parameters: the digest's `indexKey`, then the digest).
    private static let placeQuery = """
        SELECT pack.name, chunk.offset, chunk.length, chunk.bodyDigest FROM chunk JOIN pack ON pack.id = chunk.pack WHERE chunk.digestKey = ? AND chunk.digest = ?
        """

    /// A row when a chunk is stored (parameters: the digest's `indexKey`, then the digest).
    static let presenceQuery = "SELECT 1 FROM chunk WHERE digestKey = ? AND digest = ?"

    /// Where a stored chunk's bytes are: a pack file's path, the offset and the length.
    func location(of digest: SHA256Digest) throws(SyncError) -> (path: String, offset: Int64, length: Int)? {
        try places(of: [digest])[digest].map { (root.path + "/" + $0.pack, $0.offset, $0.length) }
    }

    /// Marks those of `digests` that are stored as stored again now, so a collection leaves
    /// them for another grace period; returns those that are not stored (any more).
    func refresh(_ digests: Set<SHA256Digest>) throws(SyncError) -> Set<SHA256Digest> {
        guard !digests.isEmpty else { return [] }
        do {
            return try pool.write { db in
                let refresh = try db.directStatement(sql: PackStore.refreshStatement)
                let now = PackStore.storageTime()
                var gone = Set<SHA256Digest>()
                for digest in digests {
                    refresh.bind(1, now)
                    refresh.bind(2, digest.indexKey)
                    refresh.bind(3, digest)
                    try refresh.execute()
                    if db.changesCount == 0 { gone.insert(digest) }
                }
                return gone
            }
        } catch {
            throw LocalBackend.map(error, "store \(digests.count) chunks again")
        }
    }

    /// Sets a stored chunk's age to now (parameters: the time, the digest's `indexKey`, the digest).
    static let refreshStatement = "UPDATE chunk SET storedAt = ? WHERE digestKey = ? AND digest = ?"

    /// Now, as a chunk's `storedAt`: milliseconds since 1970.
    static func storageTime(_ date: Date = Date()) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// A new pack file's name: the time in milliseconds, then 12 random characters.
    static func newPackName() -> String {
        "\(Int64(Date().timeIntervalSince1970 * 1000))-\(RecordID.newName().suffix(12)).pack"
    }

    /// Makes the pack's directory entry durable.
    func syncDirectory() -> SyncError? {
        let fd = open(root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return SyncError.posix("open \(root.path)", errno) }
        defer { close(fd) }
        return fsync(fd) == 0 ? nil : SyncError.posix("flush \(root.path)", errno)
    }

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
