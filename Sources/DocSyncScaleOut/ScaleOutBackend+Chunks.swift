import DocSyncCore
import DocSyncS3
import DocSyncStorage
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import PostgresNIO

/// Chunks in the scale-out store: each upload's new chunks go into one pack object of the
/// bucket (a request per batch, not per 4–8 KiB chunk), indexed in PostgreSQL by digest
/// with their pack, offset and length, and a sealed chunk's body digest. The object is
/// written before its index rows, so an index row always names bytes that exist; an object
/// whose rows never came (the instance died between the two) is swept by the collection
/// once it is older than the grace period.
///
/// Reads find the packs in one statement and fetch each pack's wanted ranges with ranged
/// GETs (neighbouring ranges merged), several at once; every chunk read is verified against
/// its digest (a sealed chunk's: its body digest).
extension ScaleOutBackend {
    /// Where a stored chunk lies: its pack object, offset and length; and what its bytes
    /// must hash to when that is not its digest (a sealed chunk's body digest).
    public struct ChunkPlace: Sendable, Hashable {
        public var objectKey: String
        public var offset: Int64
        public var length: Int
        public var bodyDigest: SHA256Digest? = nil
    }

    /// Ranges of one pack closer than this are read with one GET (the gap is read and
    /// dropped): a GET costs about as much as two more megabytes read with it (measured on
    /// the S3 store of the tests: 4 KiB in 5–6 ms, 4 MiB in 16–18 ms).
    static let mergeGap: Int64 = 1 << 20
    /// Ranged GETs of one read in flight at once.
    static let concurrentReads = 8

    public func missingChunks(_ digests: [SHA256Digest]) async throws(SyncError) -> Set<SHA256Digest> {
        let account = self.account, logger = self.logger
        let stored = try await store.withConnection("look up \(digests.count) chunks") { connection in
            try await Self.storedChunks(Array(Set(digests)), account: account, connection, logger)
        }
        return Set(digests).subtracting(stored)
    }

    public func uploadChunk(_ digest: SHA256Digest, bytes: Data) async throws(SyncError) {
        try await uploadChunks([ChunkUpload(digest: digest, bytes: bytes)], byteLimit: nil)
    }

    public func uploadChunks(_ chunks: [ChunkUpload]) async throws(SyncError) {
        try await uploadChunks(chunks, byteLimit: nil)
    }

    /// Stores `chunks`, refusing the whole batch (storing nothing) when any is too large or
    /// does not hash to its digest, a sealed chunk to its body digest (`limitExceeded`,
    /// `chunkDigestMismatch`), or, with `byteLimit`, when its new chunks would take the
    /// account's chunks past that many bytes (`quotaExceeded` with the usage and the limit). Chunks already stored are not written
    /// again; their age starts over, so a collection leaves them for another grace period.
    public func uploadChunks(_ chunks: [ChunkUpload], byteLimit: Int64?) async throws(SyncError) {
        // In the order given: a device uploads a file's chunks together and downloads them
        // together, so they lie side by side in the pack and come back in one ranged GET.
        var unique: [SHA256Digest: ChunkUpload] = [:]
        var order: [SHA256Digest] = []
        for chunk in chunks {
            try chunk.checkBeforeStoring()
            if unique.updateValue(chunk, forKey: chunk.digest) == nil { order.append(chunk.digest) }
        }
        guard !unique.isEmpty else { return }
        let account = self.account, logger = self.logger
        let now = Self.storageTime()
        let refreshed = try await store.withConnection("refresh \(unique.count) chunks") { connection in
            try await Self.refresh(Array(unique.keys), account: account, at: now, connection, logger)
        }
        let absent = order.filter { !refreshed.contains($0) }.map { unique[$0]! }
        guard !absent.isEmpty else { return }
        var pack = ByteBuffer()
        pack.reserveCapacity(absent.reduce(0) { $0 + $1.bytes.count })
        var entries: [PackEntry] = []
        for chunk in absent {
            entries.append(PackEntry(digest: chunk.digest, offset: Int64(pack.writerIndex), length: chunk.bytes.count, bodyDigest: chunk.bodyDigest))
            pack.writeBytes(chunk.bytes)
        }
        let key = "packs/\(account)/\(UUID().uuidString.lowercased())"
        do {
            try await store.objects.putObject(key, pack)
        } catch {
            throw Self.map(error, "store a pack of \(entries.count) chunks")
        }
        let size = Int64(pack.readableBytes)
        let indexed: Bool
        do {
            indexed = try await store.withConnection("index \(entries.count) chunks") { connection in
                try await connection.transaction(logger) { connection in
                    try await Self.index(entries, objectKey: key, size: size, account: account, at: now, byteLimit: byteLimit, connection, logger)
                }
            }
        } catch {
            try? await store.objects.deleteObject(key)
            throw error
        }
        if !indexed { try? await store.objects.deleteObject(key) }
    }

    /// A chunk written into a new pack: where it lies in it, and a sealed chunk's body digest.
    struct PackEntry {
        var digest: SHA256Digest
        var offset: Int64
        var length: Int
        var bodyDigest: SHA256Digest?
    }

    /// Inside the upload's transaction: the pack's row, its chunks' rows (a chunk another
    /// upload stored meanwhile keeps its first copy, with its body digest, stored again now),
    /// the counters and the quota. Rolls back and returns false when no chunk of the pack is
    /// new (the caller removes the object).
    private static func index(
        _ entries: [PackEntry], objectKey: String, size: Int64, account: Int64,
        at now: Int64, byteLimit: Int64?, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> (Bool, commit: Bool) {
        // The account's row first, as every writer of the account takes it: no deadlock with a collection.
        var used: Int64 = 0
        for try await bytes in try await connection.statement("SELECT chunk_bytes FROM account WHERE id = \(account) FOR UPDATE", logger: logger).decode(Int64.self) {
            used = bytes
        }
        var packID: Int64 = 0
        for try await id in try await connection.statement("""
            INSERT INTO pack (account, object_key, bytes, created_at) VALUES (\(account), \(objectKey), \(size), \(now)) RETURNING id
            """, logger: logger).decode(Int64.self) {
            packID = id
        }
        let digests = entries.map { ByteBuffer(bytes: $0.digest.bytes) }, offsets = entries.map(\.offset), lengths = entries.map { Int64($0.length) }
        // A plain chunk's body digest goes as an empty bytea and is stored as NULL.
        let bodyDigests = entries.map { ByteBuffer(bytes: $0.bodyDigest?.bytes ?? []) }
        var added: (count: Int64, bytes: Int64) = (0, 0)
        let rows = try await connection.statement("""
            INSERT INTO chunk (account, digest, pack, "offset", length, stored_at, body_digest)
            SELECT \(account), digest, \(packID), "offset", length, \(now), NULLIF(body_digest, ''::bytea)
            FROM unnest(\(digests)::bytea[], \(offsets)::bigint[], \(lengths)::bigint[], \(bodyDigests)::bytea[]) AS t(digest, "offset", length, body_digest)
            ON CONFLICT (account, digest) DO UPDATE SET stored_at = excluded.stored_at
            RETURNING (xmax = 0), length
            """, logger: logger)
        for try await (inserted, length) in rows.decode((Bool, Int32).self) where inserted {
            added.count += 1
            added.bytes += Int64(length)
        }
        guard added.count > 0 else { return (false, commit: false) }  // every chunk was stored meanwhile by another upload
        try StoreQuota.admit(adding: added.bytes, to: used, limit: byteLimit)
        try await connection.statement("""
            UPDATE account SET chunk_count = chunk_count + \(added.count), chunk_bytes = chunk_bytes + \(added.bytes) WHERE id = \(account)
            """, logger: logger)
        return (true, commit: true)
    }

    /// Starts the age of those of `digests` the account stores over; returns them.
    static func refresh(_ digests: [SHA256Digest], account: Int64, at now: Int64, _ connection: PostgresConnection, _ logger: Logger) async throws -> Set<SHA256Digest> {
        let keys = digests.map { ByteBuffer(bytes: $0.bytes) }
        var found = Set<SHA256Digest>()
        let rows = try await connection.statement("""
            UPDATE chunk SET stored_at = \(now) WHERE account = \(account) AND digest = ANY(\(keys)) RETURNING digest
            """, logger: logger)
        for try await bytes in rows.decode(ByteBuffer.self) {
            if let digest = SHA256Digest(bytes: bytes.readableBytesView) { found.insert(digest) }
        }
        return found
    }

    // MARK: Reading

    public func downloadChunk(_ digest: SHA256Digest) async throws(SyncError) -> Data {
        try await downloadChunks([digest])[digest]!
    }

    public func downloadChunks(_ digests: [SHA256Digest]) async throws(SyncError) -> [SHA256Digest: Data] {
        let places = try await places(of: Array(Set(digests)))
        if let missing = digests.first(where: { places[$0] == nil }) { throw SyncError.chunkNotFound(missing) }
        return try await read(places)
    }

    /// The first chunks of `digests`, in order (a repeated digest is repeated), verified: as
    /// many as fit `budget` when each counts `cost(length)`, and at least one; a sealed one
    /// with its body digest. Throws `chunkNotFound` for the first digest of that prefix that
    /// is not stored, and `chunkCorrupt` as `downloadChunks` does.
    public func downloadChunks(prefixOf digests: [SHA256Digest], budget: Int,
                               cost: @escaping @Sendable (Int) -> Int) async throws(SyncError) -> [ChunkUpload] {
        let (order, prefix) = try ChunkBudget.prefix(of: digests, places: try await places(of: Array(Set(digests))), length: \.length,
                                                    budget: budget, cost: cost)
        let found = try await read(prefix)
        return order.map { ChunkUpload(digest: $0, bytes: found[$0]!, isVerified: true, bodyDigest: prefix[$0]!.bodyDigest) }
    }

    /// Where each of `digests` the account stores lies.
    public func places(of digests: [SHA256Digest]) async throws(SyncError) -> [SHA256Digest: ChunkPlace] {
        guard !digests.isEmpty else { return [:] }
        let account = self.account, logger = self.logger
        let keys = digests.map { ByteBuffer(bytes: $0.bytes) }
        return try await store.withConnection("look up \(digests.count) chunks") { connection in
            var places: [SHA256Digest: ChunkPlace] = [:]
            let rows = try await connection.statement("""
                SELECT chunk.digest, pack.object_key, chunk."offset", chunk.length, chunk.body_digest FROM chunk JOIN pack ON pack.id = chunk.pack
                WHERE chunk.account = \(account) AND chunk.digest = ANY(\(keys))
                """, logger: logger)
            for try await (bytes, key, offset, length, body) in rows.decode((ByteBuffer, String, Int64, Int32, ByteBuffer?).self) {
                guard let digest = SHA256Digest(bytes: bytes.readableBytesView) else { continue }
                places[digest] = ChunkPlace(objectKey: key, offset: offset, length: Int(length), bodyDigest: body.flatMap { SHA256Digest(bytes: $0.readableBytesView) })
            }
            return places
        }
    }

    /// Reads and verifies the chunks at `places`: `chunkCorrupt` for one whose bytes do not
    /// match its digest (a sealed chunk's: its body digest) or whose pack is gone. A pack that
    /// is gone may have been compacted since `places` were looked up: they are looked up once
    /// more and read again.
    func read(_ places: [SHA256Digest: ChunkPlace]) async throws(SyncError) -> [SHA256Digest: Data] {
        do {
            do {
                return try await readOnce(places)
            } catch let gone as PackGone {
                let fresh = try await self.places(of: Array(places.keys))
                guard fresh.count == places.count, fresh != places else { throw gone }
                return try await readOnce(fresh)
            }
        } catch let gone as PackGone {
            throw gone.error
        } catch {
            throw Self.map(error, "read \(places.count) chunks")
        }
    }

    /// A pack object that is not in the bucket (any more).
    struct PackGone: Error {
        let error: SyncError
    }

    private func readOnce(_ places: [SHA256Digest: ChunkPlace]) async throws -> [SHA256Digest: Data] {
        let reads = PackReadPlan.make(places, mergeGap: Self.mergeGap)
        let objects = store.objects
        return try await withThrowingTaskGroup(of: [SHA256Digest: Data].self) { group in
            var found: [SHA256Digest: Data] = [:]
            var next = 0
            func start() {
                let read = reads[next]
                next += 1
                group.addTask {
                    let bytes: ByteBuffer
                    do {
                        bytes = try await objects.getObject(read.objectKey, range: read.range)
                    } catch let error as S3Error where error.code == .noSuchKey {
                        throw PackGone(error: SyncError(
                            .chunkCorrupt, "the pack \(read.objectKey) holding chunk \(read.chunks[0].digest.shortHex) is gone from the bucket; its chunks must be uploaded again",
                            digest: read.chunks[0].digest))
                    }
                    return try read.verifiedChunks(in: bytes)
                }
            }
            while next < min(reads.count, Self.concurrentReads) { start() }
            while let chunks = try await group.next() {
                found.merge(chunks) { first, _ in first }
                if next < reads.count { start() }
            }
            return found
        }
    }

    /// Milliseconds since 1970: the unit of chunks' and packs' ages.
    static func storageTime(_ date: Date = Date()) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// Classifies a failure of the bucket: what may pass is `serviceUnavailable`.
    static func map(_ error: any Error, _ what: String) -> SyncError {
        if let error = error as? SyncError { return error }
        guard let error = error as? S3Error else { return SyncError(.internalError, "\(what): \(error)") }
        switch error.code {
        case .slowDown: return SyncError(.serviceUnavailable, "\(what): the object store asks to slow down; retry shortly", retryAfter: 1)
        default: return SyncError(.serviceUnavailable, "\(what): the object store failed (\(error.message)); retry shortly")
        }
    }
}
