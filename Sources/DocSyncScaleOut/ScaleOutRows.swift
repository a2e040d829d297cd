import DocSyncCore
import DocSyncStorage
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import PostgresNIO

/// One account's rows in PostgreSQL under the store algorithm (`AsyncStoreRows`, run by
/// `AnsweredRows`): every statement names the account, so these rows reach its zones,
/// records and chunks and no other's.
///
/// The layer's own, said here: the caller holds a transaction on `connection`; the first
/// sequence reservation takes the account's row lock (`UPDATE account SET seq = …`) until
/// that transaction ends, which serializes the account's writers, so sequence order is
/// commit order and a reader that sees a change sees every earlier one; a change that
/// reaches other clients sends a `NOTIFY` inside the transaction, delivered at its commit.
/// Time columns: `tombstone.deleted_at` in seconds, `deleted_record.deleted_at` and
/// `replaced_version.replaced_at` in nanoseconds since 1970.
struct ScaleOutRows: AsyncStoreRows {
    let connection: PostgresConnection
    let account: Int64
    let logger: Logger

    var tokenAccount: Int64? { account }

    func allZones() async throws -> [(name: String, movedTo: String?)] {
        var zones: [(name: String, movedTo: String?)] = []
        let rows = try await connection.statement("SELECT name, moved_to FROM zone WHERE account = \(account)", logger: logger)
        for try await (name, movedTo) in rows.decode((String, String?).self) {
            zones.append((name, movedTo))
        }
        return zones
    }

    func zoneState(of zone: String) async throws -> ZoneState? {
        let rows = try await connection.statement("""
            SELECT incarnation, last_seq, compacted_through_seq, moved_to FROM zone WHERE account = \(account) AND name = \(zone)
            """, logger: logger)
        for try await (incarnation, lastSeq, compacted, movedTo) in rows.decode((String, Int64, Int64, String?).self) {
            return ZoneState(incarnation: incarnation, lastSeq: lastSeq, compactedThrough: compacted, movedTo: movedTo)
        }
        return nil
    }

    func liveVersions(_ names: [String], in zone: String) async throws -> [String: StoredVersion] {
        guard !names.isEmpty else { return [:] }
        let rows = try await connection.statement("""
            SELECT record_name, change_tag, seq, body FROM record WHERE account = \(account) AND zone = \(zone) AND record_name = ANY(\(names))
            """, logger: logger)
        var found: [String: StoredVersion] = [:]
        for try await (name, changeTag, seq, body) in rows.decode((String, String, Int64, ByteBuffer).self) {
            found[name] = StoredVersion(changeTag: changeTag, seq: seq, body: Data(buffer: body, byteTransferStrategy: .noCopy))
        }
        return found
    }

    func deletedEntries(_ names: [String]?, in zone: String, since: Timestamp?) async throws -> [StoredDeletion] {
        let after = since?.nanosecondsSince1970 ?? Int64.min
        let rows: PostgresRowSequence
        if let names {
            guard !names.isEmpty else { return [] }
            rows = try await connection.statement("""
                SELECT record_name, seq, body, deleted_at, deleted_by FROM deleted_record
                WHERE account = \(account) AND zone = \(zone) AND record_name = ANY(\(names)) AND deleted_at >= \(after)
                """, logger: logger)
        } else {
            rows = try await connection.statement("""
                SELECT record_name, seq, body, deleted_at, deleted_by FROM deleted_record
                WHERE account = \(account) AND zone = \(zone) AND deleted_at >= \(after)
                """, logger: logger)
        }
        var found: [StoredDeletion] = []
        for try await (name, seq, body, deletedAt, deletedBy) in rows.decode((String, Int64, ByteBuffer, Int64, String).self) {
            found.append(StoredDeletion(name: name, version: StoredVersion(changeTag: nil, seq: seq, body: Data(buffer: body)),
                                      deletedAt: Timestamp(nanosecondsSince1970: deletedAt), deletedBy: deletedBy))
        }
        return found
    }

    func keptBodies(in zone: String) async throws -> [Data] {
        let rows = try await connection.statement("""
            SELECT body FROM record WHERE account = \(account) AND zone = \(zone)
            UNION ALL SELECT body FROM deleted_record WHERE account = \(account) AND zone = \(zone)
            UNION ALL SELECT body FROM replaced_version WHERE account = \(account) AND zone = \(zone)
            """, logger: logger)
        var bodies: [Data] = []
        for try await body in rows.decode(ByteBuffer.self) { bodies.append(Data(buffer: body)) }
        return bodies
    }

    func storedChunks(among digests: [SHA256Digest]) async throws -> Set<SHA256Digest> {
        try await ScaleOutBackend.storedChunks(digests, account: account, connection, logger)
    }

    func changes(in zone: String, after: Int64, limit: Int) async throws -> [ChangeRow] {
        let limit = Int64(limit)
        let rows = try await connection.statement("""
            SELECT record_name, seq, body FROM record WHERE account = \(account) AND zone = \(zone) AND seq > \(after)
            UNION ALL
            SELECT record_name, seq, NULL FROM tombstone WHERE account = \(account) AND zone = \(zone) AND seq > \(after)
            ORDER BY seq LIMIT \(limit)
            """, logger: logger)
        var found: [ChangeRow] = []
        for try await (name, seq, body) in rows.decode((String, Int64, ByteBuffer?).self) {
            found.append(ChangeRow(name: name, seq: seq, body: body.map { Data(buffer: $0, byteTransferStrategy: .noCopy) }))
        }
        return found
    }

    func reserveSequence(_ count: Int) async throws -> Int64 {
        try await ScaleOutBackend.reserveSequence(count, account: account, connection, logger) - Int64(count) + 1
    }

    func newIncarnation() -> String { RecordID.newName() }

    func apply(_ writes: StoreWrites) async throws {
        let zone = writes.zone
        if writes.deleteZone {
            // Records, tombstones and kept versions go with it (ON DELETE CASCADE).
            try await connection.statement("DELETE FROM zone WHERE account = \(account) AND name = \(zone)", logger: logger)
            try await ScaleOutBackend.notify(account: account, zone: ZoneID(zone), connection, logger)
            return
        }
        if let target = writes.moveTo {
            for table in ["record", "tombstone", "deleted_record", "replaced_version"] {
                try await connection.statement("DELETE FROM \(unescaped: table) WHERE account = \(account) AND zone = \(zone)", logger: logger)
            }
            try await connection.statement("UPDATE zone SET moved_to = \(target) WHERE account = \(account) AND name = \(zone)", logger: logger)
        }
        if let created = writes.createZone {
            try await connection.statement("""
                INSERT INTO zone (account, name, incarnation, last_seq) VALUES (\(account), \(zone), \(created.incarnation), \(created.seq))
                """, logger: logger)
        }
        let now = writes.now.nanosecondsSince1970
        if !writes.replaced.isEmpty {
            let names = writes.replaced.map(\.name), seqs = writes.replaced.map(\.version.seq)
            let bodies = writes.replaced.map { ByteBuffer(data: $0.version.body) }
            try await connection.statement("""
                INSERT INTO replaced_version (account, zone, record_name, seq, replaced_at, body)
                SELECT \(account), \(zone), name, seq, \(now), body FROM unnest(\(names)::text[], \(seqs)::bigint[], \(bodies)::bytea[]) AS t(name, seq, body)
                """, logger: logger)
        }
        if !writes.leaveRecentlyDeleted.isEmpty {
            try await deleteRows(from: "deleted_record", names: writes.leaveRecentlyDeleted, zone: zone)
        }
        if !writes.purged.isEmpty {
            try await deleteRows(from: "deleted_record", names: writes.purged, zone: zone)
            try await deleteRows(from: "replaced_version", names: writes.purged, zone: zone)
        }
        if !writes.saves.isEmpty {
            let names = writes.saves.map(\.name), tags = writes.saves.map(\.changeTag), seqs = writes.saves.map(\.seq)
            let bodies = writes.saves.map { ByteBuffer(data: $0.body) }
            try await connection.statement("""
                INSERT INTO record (account, zone, record_name, change_tag, seq, body)
                SELECT \(account), \(zone), * FROM unnest(\(names)::text[], \(tags)::text[], \(seqs)::bigint[], \(bodies)::bytea[])
                ON CONFLICT (account, zone, record_name) DO UPDATE
                SET change_tag = excluded.change_tag, seq = excluded.seq, body = excluded.body
                """, logger: logger)
            try await deleteRows(from: "tombstone", names: names, zone: zone)
        }
        if !writes.deletions.isEmpty {
            let names = writes.deletions.map(\.name), seqs = writes.deletions.map(\.seq)
            let keptOnes = writes.deletions.compactMap { deletion in deletion.kept.map { (name: deletion.name, device: deletion.device, kept: $0) } }
            let keptNames = keptOnes.map(\.name), keptSeqs = keptOnes.map(\.kept.seq), devices = keptOnes.map(\.device)
            let bodies = keptOnes.map { ByteBuffer(data: $0.kept.body) }
            let seconds = writes.now.date.timeIntervalSince1970
            try await deleteRows(from: "record", names: names, zone: zone)
            try await connection.statement("""
                INSERT INTO tombstone (account, zone, record_name, seq, deleted_at)
                SELECT \(account), \(zone), name, seq, \(seconds) FROM unnest(\(names)::text[], \(seqs)::bigint[]) AS t(name, seq)
                ON CONFLICT (account, zone, record_name) DO UPDATE SET seq = excluded.seq, deleted_at = excluded.deleted_at
                """, logger: logger)
            if !keptOnes.isEmpty { try await connection.statement("""
                INSERT INTO deleted_record (account, zone, record_name, seq, deleted_at, deleted_by, body)
                SELECT \(account), \(zone), name, seq, \(now), device, body
                FROM unnest(\(keptNames)::text[], \(keptSeqs)::bigint[], \(devices)::text[], \(bodies)::bytea[]) AS t(name, seq, device, body)
                ON CONFLICT (account, zone, record_name) DO UPDATE
                SET seq = excluded.seq, deleted_at = excluded.deleted_at, deleted_by = excluded.deleted_by, body = excluded.body
                """, logger: logger) }
        }
        if let lastSeq = writes.lastSeq {
            try await connection.statement("""
                UPDATE zone SET last_seq = greatest(last_seq, \(lastSeq)) WHERE account = \(account) AND name = \(zone)
                """, logger: logger)
        }
        if writes.announcesChange { try await ScaleOutBackend.notify(account: account, zone: ZoneID(zone), connection, logger) }
    }

    /// Deletes the rows of `names` in `zone` from `table`.
    private func deleteRows(from table: String, names: [String], zone: String) async throws {
        try await connection.statement("""
            DELETE FROM \(unescaped: table) WHERE account = \(account) AND zone = \(zone) AND record_name = ANY(\(names))
            """, logger: logger)
    }
}
