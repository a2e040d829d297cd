import DocSyncCore
import DocSyncStorage
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// Rewriting packs that are mostly garbage: after the sweep, a pack older than the grace
/// period whose live chunks take less than half of it has them copied into a new pack; the
/// chunks' rows are moved to it in a transaction that holds the account's lock (only rows
/// still in the old pack move), and the old pack goes once no row names it. A reader that
/// looked a chunk up before the move and finds the old object gone looks it up again
/// (`ScaleOutBackend.read`).
extension ScaleOutCollector {
    /// Live bytes under this share of a pack's bytes make it worth rewriting.
    static let compactionThreshold = 0.5
    /// Bytes of live chunks copied by one collection at most (the rest waits for the next).
    static let compactionBudget: Int64 = 256 << 20

    /// Rewrites the sparse packs older than `cutoff`, of `account` only when given.
    func compactSparsePacks(of account: Int64?, olderThan cutoff: Int64, into report: inout GarbageCollectionReport, _ connection: PostgresConnection) async throws {
        let logger = store.logger
        var sparse: [(pack: Int64, account: Int64, key: String, bytes: Int64, live: Int64)] = []
        let rows = try await connection.statement("""
            SELECT pack.id, pack.account, pack.object_key, pack.bytes, coalesce(sum(chunk.length), 0)::bigint
            FROM pack LEFT JOIN chunk ON chunk.pack = pack.id
            WHERE pack.created_at < \(cutoff) AND (\(account)::bigint IS NULL OR pack.account = \(account))
            GROUP BY pack.id HAVING coalesce(sum(chunk.length), 0) < pack.bytes * \(Self.compactionThreshold)
            ORDER BY pack.account, pack.id
            """, logger: logger)
        for try await (pack, account, key, bytes, live) in rows.decode((Int64, Int64, String, Int64, Int64).self) {
            sparse.append((pack, account, key, bytes, live))
        }
        var copied: Int64 = 0
        for pack in sparse {
            report.packBytesBefore += pack.bytes
            guard pack.live > 0 else { continue }  // removed whole with the empty packs
            guard copied < Self.compactionBudget else {
                report.packBytesAfter += pack.bytes
                continue
            }
            copied += pack.live
            let moved = try await rewrite(pack.pack, key: pack.key, account: pack.account, connection)
            report.packsCompacted += 1
            report.chunksMoved += moved
            report.packBytesAfter += pack.live
        }
    }

    /// Rewrites the packs `ids` of `account` however full and however young they are (those
    /// a sweep removed chunks from, when no byte of those chunks may stay in the bucket):
    /// each one's live chunks go to a new pack. The old packs, and those with nothing left,
    /// go with the empty ones.
    func rewrite(_ ids: Set<Int64>, of account: Int64, into report: inout GarbageCollectionReport, _ connection: PostgresConnection) async throws {
        guard !ids.isEmpty else { return }
        let wanted = Array(ids)
        var packs: [(pack: Int64, key: String, live: Int64)] = []
        for try await (pack, key, live) in try await connection.statement("""
            SELECT pack.id, pack.object_key, coalesce(sum(chunk.length), 0)::bigint
            FROM pack LEFT JOIN chunk ON chunk.pack = pack.id
            WHERE pack.account = \(account) AND pack.id = ANY(\(wanted)) GROUP BY pack.id ORDER BY pack.id
            """, logger: store.logger).decode((Int64, String, Int64).self) {
            packs.append((pack, key, live))
        }
        for pack in packs where pack.live > 0 {
            report.chunksMoved += try await rewrite(pack.pack, key: pack.key, account: account, connection)
            report.packsCompacted += 1
        }
    }

    /// Copies the live chunks of pack `id` into a new pack and moves their rows; returns how
    /// many moved. The old pack, left without rows, goes with the empty ones.
    private func rewrite(_ id: Int64, key: String, account: Int64, _ connection: PostgresConnection) async throws -> Int {
        let logger = store.logger
        var places: [SHA256Digest: ScaleOutBackend.ChunkPlace] = [:]
        var order: [SHA256Digest] = []
        for try await (bytes, offset, length, body) in try await connection.statement("""
            SELECT digest, "offset", length, body_digest FROM chunk WHERE pack = \(id) ORDER BY "offset"
            """, logger: logger).decode((ByteBuffer, Int64, Int32, ByteBuffer?).self) {
            guard let digest = SHA256Digest(bytes: bytes.readableBytesView) else { continue }
            // Verified as they are read, a sealed chunk against its body digest, which stays in its row.
            places[digest] = ScaleOutBackend.ChunkPlace(objectKey: key, offset: offset, length: Int(length),
                                                        bodyDigest: body.flatMap { SHA256Digest(bytes: $0.readableBytesView) })
            order.append(digest)
        }
        guard !order.isEmpty else { return 0 }
        let chunks = try await store.backend(account: account).read(places)
        var pack = ByteBuffer()
        var offsets: [Int64] = []
        for digest in order {
            offsets.append(Int64(pack.writerIndex))
            pack.writeBytes(chunks[digest]!)
        }
        let newKey = "packs/\(account)/\(UUID().uuidString.lowercased())"
        do {
            try await store.objects.putObject(newKey, pack)
        } catch {
            throw ScaleOutBackend.map(error, "write a compacted pack")
        }
        let size = Int64(pack.readableBytes), now = ScaleOutBackend.storageTime()
        let digests = order.map { ByteBuffer(bytes: $0.bytes) }
        return try await connection.transaction(logger) { connection in
            for try await _ in try await connection.statement("SELECT 1 FROM account WHERE id = \(account) FOR UPDATE", logger: logger) {}
            var newID: Int64 = 0
            for try await inserted in try await connection.statement("""
                INSERT INTO pack (account, object_key, bytes, created_at) VALUES (\(account), \(newKey), \(size), \(now)) RETURNING id
                """, logger: logger).decode(Int64.self) {
                newID = inserted
            }
            var moved = 0
            for try await _ in try await connection.statement("""
                UPDATE chunk SET pack = \(newID), "offset" = t.o
                FROM unnest(\(digests)::bytea[], \(offsets)::bigint[]) AS t(d, o)
                WHERE chunk.account = \(account) AND chunk.digest = t.d AND chunk.pack = \(id)
                RETURNING 1
                """, logger: logger) {
                moved += 1
            }
            return (moved, commit: true)
        }
    }
}
