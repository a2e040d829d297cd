import DocSyncCore
import DocSyncStorage
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import PostgresNIO

/// Recently Deleted in the scale-out store (SPEC §4a), as in the embedded store:
/// `modifyRecords` keeps each deleted record's last version in `deleted_record` (and each
/// replaced version in `replaced_version`); these calls list, recover and purge them.
/// Entries older than the settings' `deletedRetention` are never listed or recovered, and
/// are removed by each collection.
extension ScaleOutBackend {
    public func listDeleted(in zone: ZoneID, since: Timestamp?) async throws(SyncError) -> [DeletedRecord] {
        let after = max(retentionCutoff() + 1, since?.nanosecondsSince1970 ?? Int64.min)
        let account = self.account, name = zone.name, logger = self.logger
        return try await store.withConnection("list Recently Deleted of \(zone)") { connection in
            _ = try await Self.zoneState(of: zone, account: account, connection, logger)
            let rows = try await connection.statement("""
                SELECT body, deleted_at, deleted_by FROM deleted_record WHERE account = \(account) AND zone = \(name) AND deleted_at >= \(after)
                ORDER BY deleted_at DESC, record_name COLLATE "C"
                """, logger: logger)
            var found: [DeletedRecord] = []
            for try await (body, deletedAt, deletedBy) in rows.decode((ByteBuffer, Int64, String).self) {
                found.append(DeletedRecord(record: try ModifyDecision.decode(Data(buffer: body)), deletedAt: Timestamp(nanosecondsSince1970: deletedAt),
                                           deletedBy: deletedBy))
            }
            return found
        }
    }

    public func recoverDeleted(_ recoveries: [DeletedRecordRecovery], in zone: ZoneID) async throws(SyncError) -> ModifyResult {
        guard recoveries.count <= RecordBatch.maximumItems else {
            throw SyncError(.limitExceeded, "\(recoveries.count) records to recover in one call exceeds \(RecordBatch.maximumItems); split them and resend")
        }
        let cutoff = retentionCutoff()
        let account = self.account, logger = self.logger
        return try await store.withConnection("recover \(recoveries.count) records in \(zone)") { connection in
            try await connection.transaction(logger) { connection in
                try await Self.recover(recoveries, in: zone, keptAfter: cutoff, account: account, connection, logger)
            }
        }
    }

    public func purgeDeleted(in zone: ZoneID, ids: [RecordID]?) async throws(SyncError) -> Int {
        let account = self.account, name = zone.name, logger = self.logger
        let names = ids.map { Array(Set($0.filter { $0.zone == zone }.map(\.recordName))) }
        let purged = try await store.withConnection("purge Recently Deleted of \(zone)") { connection in
            try await connection.transaction(logger) { connection in
                _ = try await Self.zoneState(of: zone, account: account, connection, logger)
                let rows: PostgresRowSequence
                if let names {
                    rows = try await connection.statement("""
                        DELETE FROM deleted_record WHERE account = \(account) AND zone = \(name) AND record_name = ANY(\(names)) RETURNING record_name
                        """, logger: logger)
                } else {
                    rows = try await connection.statement("DELETE FROM deleted_record WHERE account = \(account) AND zone = \(name) RETURNING record_name", logger: logger)
                }
                var purged: [String] = []
                for try await recordName in rows.decode(String.self) { purged.append(recordName) }
                if !purged.isEmpty { try await Self.deleteRows(from: "replaced_version", names: purged, zone: name, account: account, connection, logger) }
                return (purged.count, commit: true)
            }
        }
        if purged > 0 { logger.info("purged Recently Deleted", metadata: ["zone": "\(zone)", "records": "\(purged)", "account": "\(account)"]) }
        return purged
    }

    /// The oldest time of deletion or replacement still kept, in nanoseconds since 1970.
    func retentionCutoff(now: Date = Date()) -> Int64 {
        Timestamp(now.addingTimeInterval(-store.settings.deletedRetention)).nanosecondsSince1970
    }

    /// The recover algorithm, inside the write transaction: each recovery its own result.
    static func recover(
        _ recoveries: [DeletedRecordRecovery], in zone: ZoneID, keptAfter cutoff: Int64, account: Int64,
        _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> (ModifyResult, commit: Bool) {
        let reserved = Int64(max(1, recoveries.count))
        var seq = try await reserveSequence(Int(reserved), account: account, connection, logger) - reserved + 1
        _ = try await zoneState(of: zone, account: account, connection, logger)
        var result = ModifyResult()
        var seen = Set<RecordID>()
        for id in recoveries.map(\.id) where !seen.insert(id).inserted {
            result.failed[id] = SyncError(.invalidArguments, "\(id) appears more than once in one recovery")
        }
        let names = recoveries.map(\.id.recordName)
        let live = try await storedVersions(of: names, in: zone, account: account, table: "record", connection, logger)
        let kept = try await keptDeletions(of: names, in: zone, account: account, after: cutoff, connection, logger)
        var candidates: [(RecordID, Record)] = []
        for recovery in recoveries where result.failed[recovery.id] == nil {
            let id = recovery.id
            guard id.zone == zone else {
                result.failed[id] = SyncError(.invalidArguments, "\(id) is not in the zone \(zone) being recovered")
                continue
            }
            if let body = live[id.recordName]?.body {
                result.failed[id] = .serverRecordChanged(try ModifyDecision.decode(body))
                continue
            }
            guard let body = kept[id.recordName] else {
                result.failed[id] = .notRecentlyDeleted(id)
                continue
            }
            do { candidates.append((id, try recovery.recovered(try ModifyDecision.decode(body)))) } catch { result.failed[id] = error }
        }
        let digests = Set(candidates.flatMap { $0.1.asset?.entries.map(\.digest) ?? [] })
        let stored = try await storedChunks(Array(digests), account: account, connection, logger)
        var saves: [ModifyDecision.Save] = []
        for (id, var record) in candidates {
            if let missing = record.asset?.entries.first(where: { !stored.contains($0.digest) }) {
                result.failed[id] = .deletedChunkGone(record, missing.digest)
                continue
            }
            record.changeTag = ChangeTag(String(seq, radix: 36))
            saves.append(ModifyDecision.Save(name: id.recordName, changeTag: record.changeTag!.rawValue, seq: seq, body: CompactCoding.encode(record)))
            result.saved[id] = record
            seq += 1
        }
        guard let last = saves.last else { return (result, commit: false) }
        let zoneName = zone.name
        let saveNames = saves.map(\.name), tags = saves.map(\.changeTag), seqs = saves.map(\.seq), bodies = saves.map { ByteBuffer(data: $0.body) }
        try await connection.statement("""
            INSERT INTO record (account, zone, record_name, change_tag, seq, body)
            SELECT \(account), \(zoneName), * FROM unnest(\(saveNames)::text[], \(tags)::text[], \(seqs)::bigint[], \(bodies)::bytea[])
            """, logger: logger)
        try await deleteRows(from: "tombstone", names: saveNames, zone: zoneName, account: account, connection, logger)
        try await deleteRows(from: "deleted_record", names: saveNames, zone: zoneName, account: account, connection, logger)
        try await connection.statement("UPDATE zone SET last_seq = \(last.seq) WHERE account = \(account) AND name = \(zoneName)", logger: logger)
        try await notify(account: account, zone: zone, connection, logger)
        return (result, commit: true)
    }

    /// The bodies kept in Recently Deleted for `names`, deleted after `cutoff`.
    private static func keptDeletions(
        of names: [String], in zone: ZoneID, account: Int64, after cutoff: Int64, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [String: Data] {
        let zoneName = zone.name
        var found: [String: Data] = [:]
        let rows = try await connection.statement("""
            SELECT record_name, body FROM deleted_record
            WHERE account = \(account) AND zone = \(zoneName) AND record_name = ANY(\(names)) AND deleted_at > \(cutoff)
            """, logger: logger)
        for try await (name, body) in rows.decode((String, ByteBuffer).self) { found[name] = Data(buffer: body) }
        return found
    }
}
