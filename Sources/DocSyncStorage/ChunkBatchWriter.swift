import DocSyncCore
import DocSyncPlatform
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One batch of chunks stored into a new pack of the embedded backend as they arrive — a
/// streamed upload holds one group of chunks in memory at a time, never the whole batch.
///
/// It keeps the guarantees of a store: each group given to `add` is checked whole (sizes
/// and digests) before any of it is written; nothing is indexed, so nothing is stored,
/// until `commit`, which flushes the pack and then indexes every chunk in one transaction;
/// a batch that fails, or is `abort`ed, leaves nothing behind. Chunks already stored are
/// not written again but count as stored now (a collection's grace period starts over for
/// them); chunks already added to this batch are skipped. Use it from one task at a time.
public final class ChunkBatchWriter: Sendable {
    /// The batch's pack once it has a chunk: its descriptor, and the writer that puts it
    /// past the page cache (see `DirectFileWriter`), whose `length` is where the next chunk goes.
    private struct OpenPack {
        var fd: Int32
        var writer: DirectFileWriter
    }

    private struct State {
        var pack: OpenPack?
        var name = ""
        var entries: [(digest: SHA256Digest, offset: Int64, length: Int, bodyDigest: SHA256Digest?)] = []
        var added = Set<SHA256Digest>()
        var finished = false
    }

    private let packs: PackStore
    private let state = Mutex(State())

    init(packs: PackStore) { self.packs = packs }

    deinit { abort() }

    /// Checks `chunks` and appends those not stored yet to the batch's pack. Throws
    /// `limitExceeded` for a chunk over the size limit and `chunkDigestMismatch` for one
    /// whose bytes do not hash to its digest, or a sealed chunk's to its body digest (nothing
    /// of `chunks` is written then); the batch must then be aborted. A chunk marked
    /// `isVerified` is not hashed again. A sealed chunk's body digest is indexed with it.
    public func add(_ chunks: [ChunkUpload]) throws(SyncError) {
        guard !chunks.isEmpty else { return }
        for chunk in chunks { try chunk.checkBeforeStoring() }
        // Chunks already stored are stored again: their age starts over, so a collection
        // leaves them for another grace period. One that went meanwhile is written anew.
        let digests = chunks.map(\.digest)
        let missing = try packs.missing(digests)
        let absent = missing.union(try packs.refresh(Set(digests).subtracting(missing)))
        try state.withLock { (state: inout State) throws(SyncError) in
            guard !state.finished else { throw SyncError(.internalError, "chunks added to a batch that was already committed or aborted") }
            let new = chunks.filter { absent.contains($0.digest) && state.added.insert($0.digest).inserted }
            guard !new.isEmpty else { return }
            if state.pack == nil {
                state.name = PackStore.newPackName()
                let path = packs.root.path + "/" + state.name
                let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
                guard fd >= 0 else { throw SyncError.posix("create \(path)", errno) }
                state.pack = OpenPack(fd: fd, writer: DirectFileWriter(fd: fd))
            }
            // The writer gathers the chunks into large writes, not one system call per chunk.
            let writer = state.pack!.writer
            for chunk in new {
                let offset = writer.length
                let code = writer.append(chunk.bytes)
                guard code == 0 else { throw SyncError.posix("write \(packs.root.path)/\(state.name)", code) }
                state.entries.append((chunk.digest, offset, chunk.bytes.count, chunk.bodyDigest))
            }
        }
    }

    /// Makes the batch's new chunks durable, then stored: flushes the pack and its directory
    /// and indexes every chunk in one transaction. On failure nothing is stored.
    ///
    /// With `byteLimit`, the store's chunks may not grow past that many bytes: a batch whose
    /// new chunks would take them further is refused whole with `quotaExceeded` carrying the
    /// account's usage and quota (checked in the indexing transaction, so batches committed
    /// at once cannot overshoot it together).
    public func commit(byteLimit: Int64? = nil) throws(SyncError) {
        let (pack, name, entries) = state.withLock { state in
            state.finished = true
            defer { state.pack = nil }
            return (state.pack, state.name, state.entries)
        }
        guard let pack else { return }  // nothing new
        let (fd, writer) = (pack.fd, pack.writer)
        let path = packs.root.path + "/" + name
        var failure: SyncError?
        let code = writer.finish()
        if code != 0 { failure = SyncError.posix("write \(path)", code) }
        if failure == nil, fsync(fd) != 0 { failure = SyncError.posix("flush \(path)", errno) }
        // A collection removes pack files nobody indexed for an hour: one written that slowly
        // may be gone, and is not indexed.
        var status = stat()
        if failure == nil, fstat(fd, &status) == 0, status.st_nlink == 0 {
            failure = SyncError(.serviceUnavailable, "the pack \(path) was removed while it was written (over an hour without a write); upload the chunks again")
        }
        close(fd)
        if failure == nil { failure = packs.syncDirectory() }
        if let failure {
            unlink(path)
            throw failure
        }
        do {
            try packs.pool.write { db in
                try db.execute(sql: "INSERT INTO pack (name) VALUES (?)", arguments: [name])
                let number = db.lastInsertedRowID
                let now = PackStore.storageTime()
                // A chunk another process stored since `add` looked keeps its first copy, stored again now.
                let refresh = try db.directStatement(sql: PackStore.refreshStatement)
                let statement = try db.directStatement(sql: "INSERT INTO chunk (digestKey, digest, pack, offset, length, storedAt, bodyDigest) VALUES (?, ?, ?, ?, ?, ?, ?)")
                var added: (count: Int64, bytes: Int64) = (0, 0)
                for entry in entries {
                    refresh.bind(1, now)
                    refresh.bind(2, entry.digest.indexKey)
                    refresh.bind(3, entry.digest)
                    try refresh.execute()
                    if db.changesCount > 0 { continue }
                    statement.bind(1, entry.digest.indexKey)
                    statement.bind(2, entry.digest)
                    statement.bind(3, number)
                    statement.bind(4, entry.offset)
                    statement.bind(5, Int64(entry.length))
                    statement.bind(6, now)
                    statement.bind(7, entry.bodyDigest)
                    try statement.execute()
                    added.count += 1
                    added.bytes += Int64(entry.length)
                }
                if byteLimit != nil, added.bytes > 0 {
                    try StoreQuota.admit(adding: added.bytes, to: try StoreCounters.read(db).chunkBytes, limit: byteLimit)
                }
                try StoreCounters.add(chunks: added.count, bytes: added.bytes, db)
            }
        } catch {
            unlink(path)
            throw LocalBackend.map(error, "index \(entries.count) chunks")
        }
    }

    /// Gives the batch up: its pack is removed and nothing of it is stored. Does nothing
    /// after `commit`.
    public func abort() {
        let (pack, name) = state.withLock { state in
            state.finished = true
            defer { state.pack = nil }
            return (state.pack, state.name)
        }
        guard let pack else { return }
        close(pack.fd)
        unlink(packs.root.path + "/" + name)
    }
}
