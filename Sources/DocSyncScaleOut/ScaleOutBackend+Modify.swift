import DocSyncCore
import DocSyncStorage
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import PostgresNIO

/// `modifyRecords` in one transaction: read what the batch names, decide
/// (`ModifyDecision`), write the decision with a statement per table.
extension ScaleOutBackend {
    /// Returns the batch's result and whether to commit (an atomic batch that failed, or
    /// a batch that changed nothing, rolls back).
    static func apply(
        _ batch: RecordBatch, failedBefore: [RecordID: SyncError], account: Int64, now: Timestamp,
        _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> (ModifyResult, commit: Bool) {
        let zone = batch.zone
        let lastReserved = try await reserveSequence(max(1, batch.itemCount), account: account, connection, logger)
        let firstSeq = lastReserved - Int64(max(1, batch.itemCount)) + 1
        let state = try await zoneState(of: zone, account: account, connection, logger)
        let senderIsCurrent = batch.knownToken.flatMap { try? StoreChangeToken($0) }.map { known in
            known.account ?? account == account && known.zone == zone.name && known.incarnation == state.incarnation && known.seq == state.lastSeq
        } ?? false
        let named = batch.saves.map(\.id.recordName) + batch.deletions.map(\.id.recordName)
        let existing = try await storedVersions(of: named, in: zone, account: account, table: "record", connection, logger)
        let unstored = batch.saves.map(\.id.recordName).filter { existing[$0] == nil }
        let recentlyDeleted = try await storedVersions(of: unstored, in: zone, account: account, table: "deleted_record", connection, logger)
        let digests = Set(batch.saves.flatMap { $0.asset?.entries.map(\.digest) ?? [] })
        let stored = try await storedChunks(Array(digests), account: account, connection, logger)
        let decision = try ModifyDecision.decide(batch, failedBefore: failedBefore, existing: existing, recentlyDeleted: recentlyDeleted,
                                                 storedChunks: stored, firstSeq: firstSeq)
        guard let lastSeq = decision.lastSeq else { return (withToken(decision.result, senderIsCurrent ? state : nil, account, zone), commit: false) }
        try await write(decision, zone: zone, account: account, now: now, connection, logger)
        var after = state
        after.lastSeq = lastSeq
        return (withToken(decision.result, senderIsCurrent ? after : nil, account, zone), commit: true)
    }

    private static func withToken(_ result: ModifyResult, _ state: ZoneState?, _ account: Int64, _ zone: ZoneID) -> ModifyResult {
        var result = result
        if let state {
            result.token = StoreChangeToken(account: account, zone: zone.name, incarnation: state.incarnation, seq: state.lastSeq).token
        }
        return result
    }

    /// Which of `digests` the account stores.
    static func storedChunks(_ digests: [SHA256Digest], account: Int64, _ connection: PostgresConnection, _ logger: Logger) async throws -> Set<SHA256Digest> {
        guard !digests.isEmpty else { return [] }
        let keys = digests.map { ByteBuffer(bytes: $0.bytes) }
        var found = Set<SHA256Digest>()
        let rows = try await connection.statement("SELECT digest FROM chunk WHERE account = \(account) AND digest = ANY(\(keys))", logger: logger)
        for try await bytes in rows.decode(ByteBuffer.self) {
            if let digest = SHA256Digest(bytes: bytes.readableBytesView) { found.insert(digest) }
        }
        return found
    }

    /// Writes `decision`: the saved records, their tombstones gone, the versions they
    /// replaced kept, the deleted records gone with a tombstone each and their last versions
    /// in Recently Deleted, the zone's last change, and the notification.
    private static func write(_ decision: ModifyDecision, zone: ZoneID, account: Int64, now: Timestamp, _ connection: PostgresConnection, _ logger: Logger) async throws {
        let zoneName = zone.name
        if !decision.saves.isEmpty {
            let names = decision.saves.map(\.name), tags = decision.saves.map(\.changeTag), seqs = decision.saves.map(\.seq)
            let bodies = decision.saves.map { ByteBuffer(data: $0.body) }
            try await connection.statement("""
                INSERT INTO record (account, zone, record_name, change_tag, seq, body)
                SELECT \(account), \(zoneName), * FROM unnest(\(names)::text[], \(tags)::text[], \(seqs)::bigint[], \(bodies)::bytea[])
                ON CONFLICT (account, zone, record_name) DO UPDATE
                SET change_tag = excluded.change_tag, seq = excluded.seq, body = excluded.body
                """, logger: logger)
            try await deleteRows(from: "tombstone", names: names, zone: zoneName, account: account, connection, logger)
        }
        if !decision.takenFromRecentlyDeleted.isEmpty {
            try await deleteRows(from: "deleted_record", names: decision.takenFromRecentlyDeleted, zone: zoneName, account: account, connection, logger)
        }
        if !decision.replaced.isEmpty {
            try await keepReplaced(decision.replaced, zone: zoneName, account: account, at: now, connection, logger)
        }
        if !decision.deletions.isEmpty {
            let names = decision.deletions.map(\.name), seqs = decision.deletions.map(\.seq)
            let keptSeqs = decision.deletions.map(\.kept.seq), devices = decision.deletions.map(\.device)
            let bodies = decision.deletions.map { ByteBuffer(data: $0.kept.body) }
            let seconds = now.date.timeIntervalSince1970, nanoseconds = now.nanosecondsSince1970
            try await deleteRows(from: "record", names: names, zone: zoneName, account: account, connection, logger)
            try await connection.statement("""
                INSERT INTO tombstone (account, zone, record_name, seq, deleted_at)
                SELECT \(account), \(zoneName), name, seq, \(seconds) FROM unnest(\(names)::text[], \(seqs)::bigint[]) AS t(name, seq)
                ON CONFLICT (account, zone, record_name) DO UPDATE SET seq = excluded.seq, deleted_at = excluded.deleted_at
                """, logger: logger)
            try await connection.statement("""
                INSERT INTO deleted_record (account, zone, record_name, seq, deleted_at, deleted_by, body)
                SELECT \(account), \(zoneName), name, seq, \(nanoseconds), device, body
                FROM unnest(\(names)::text[], \(keptSeqs)::bigint[], \(devices)::text[], \(bodies)::bytea[]) AS t(name, seq, device, body)
                ON CONFLICT (account, zone, record_name) DO UPDATE
                SET seq = excluded.seq, deleted_at = excluded.deleted_at, deleted_by = excluded.deleted_by, body = excluded.body
                """, logger: logger)
        }
        if let lastSeq = decision.lastSeq {
            try await connection.statement("UPDATE zone SET last_seq = \(lastSeq) WHERE account = \(account) AND name = \(zoneName)", logger: logger)
            try await notify(account: account, zone: zone, connection, logger)
        }
    }

    /// Deletes the rows of `names` in `zone` from `table`.
    static func deleteRows(from table: String, names: [String], zone: String, account: Int64, _ connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.statement("""
            DELETE FROM \(unescaped: table) WHERE account = \(account) AND zone = \(zone) AND record_name = ANY(\(names))
            """, logger: logger)
    }

    /// Keeps `versions` as replaced at `time`, for the retention.
    static func keepReplaced(_ versions: [(name: String, version: StoredVersion)], zone: String, account: Int64, at time: Timestamp,
                             _ connection: PostgresConnection, _ logger: Logger) async throws {
        let names = versions.map(\.name), seqs = versions.map(\.version.seq), bodies = versions.map { ByteBuffer(data: $0.version.body) }
        let nanoseconds = time.nanosecondsSince1970
        try await connection.statement("""
            INSERT INTO replaced_version (account, zone, record_name, seq, replaced_at, body)
            SELECT \(account), \(zone), name, seq, \(nanoseconds), body FROM unnest(\(names)::text[], \(seqs)::bigint[], \(bodies)::bytea[]) AS t(name, seq, body)
            """, logger: logger)
    }
}
