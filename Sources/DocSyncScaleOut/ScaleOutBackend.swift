import DocSyncCore
import DocSyncPlatform
import DocSyncStorage
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import PostgresNIO

/// One account's storage in a `ScaleOutStore`: a `StorageBackend` whose every statement
/// names its account, so it reaches that account's zones, records and chunks and no other's.
/// It behaves as the embedded store does (the conformance suite holds both to it): change
/// tags and change tokens from the account's sequence, per-item results, atomic batches,
/// pages, tombstones, Recently Deleted and kept versions, quotas from usage counters.
///
/// It holds nothing but its account's id and its store: any instance's backend of the same
/// account sees the same data, and a change committed through one reaches the
/// `changeNotifications()` of all.
public struct ScaleOutBackend: StorageBackend {
    public let store: ScaleOutStore
    public let account: Int64

    var logger: Logger { store.logger }

    // MARK: Zones

    public func createZone(_ zone: ZoneID) async throws(SyncError) {
        let account = self.account, name = zone.name, logger = self.logger
        let incarnation = RecordID.newName()
        try await store.withConnection("create zone \(zone)") { connection in
            try await connection.transaction(logger) { connection in
                let seq = try await Self.reserveSequence(1, account: account, connection, logger)
                let rows = try await connection.statement("""
                    INSERT INTO zone (account, name, incarnation, last_seq) VALUES (\(account), \(name), \(incarnation), \(seq))
                    ON CONFLICT DO NOTHING RETURNING 1
                    """, logger: logger)
                var created = false
                for try await _ in rows { created = true }
                if created { try await Self.notify(account: account, zone: zone, connection, logger) }
                return ((), commit: created)
            }
        }
    }

    public func deleteZone(_ zone: ZoneID) async throws(SyncError) {
        let account = self.account, name = zone.name, logger = self.logger
        try await store.withConnection("delete zone \(zone)") { connection in
            try await connection.transaction(logger) { connection in
                _ = try await Self.reserveSequence(1, account: account, connection, logger)
                let rows = try await connection.statement("DELETE FROM zone WHERE account = \(account) AND name = \(name) RETURNING 1", logger: logger)
                var deleted = false
                for try await _ in rows { deleted = true }
                guard deleted else { throw SyncError.zoneNotFound(zone) }
                try await Self.notify(account: account, zone: zone, connection, logger)
                return ((), commit: true)
            }
        }
    }

    public func listZones() async throws(SyncError) -> [ZoneID] {
        let account = self.account, logger = self.logger
        return try await store.withConnection("list zones") { connection in
            var zones: [ZoneID] = []
            let rows = try await connection.statement("SELECT name FROM zone WHERE account = \(account) ORDER BY name COLLATE \"C\"", logger: logger)
            for try await name in rows.decode(String.self) { zones.append(ZoneID(name)) }
            return zones
        }
    }

    // MARK: Records

    public func fetchChanges(in zone: ZoneID, since token: ChangeToken?, limit: Int) async throws(SyncError) -> ChangeSet {
        let since = try token.map { token throws(SyncError) in try StoreChangeToken(token) }
        let pageSize = max(1, min(limit, StorageLimits.maximumPageSize))
        let account = self.account, name = zone.name, logger = self.logger
        return try await store.withConnection("fetch changes of \(zone)") { connection in
            // The zone first, then the changes: a change committed in between is in the page
            // and not yet in the zone's last_seq, which only makes the token less far ahead.
            let state = try await Self.zoneState(of: zone, account: account, connection, logger)
            var after: Int64 = 0
            if let since {
                guard since.account ?? account == account, since.zone == name, since.incarnation == state.incarnation else {
                    throw SyncError(.changeTokenExpired, "change token is for \(since.zone == name ? "an earlier incarnation of" : "another zone than") \(zone); fetch from the beginning")
                }
                guard since.seq >= state.compactedThrough else {
                    throw SyncError(.changeTokenExpired, "change token of \(zone) predates compacted deletions; fetch from the beginning and reconcile")
                }
                after = since.seq
            }
            let limit = Int64(pageSize + 1)
            let rows = try await connection.statement("""
                SELECT record_name, seq, body FROM record WHERE account = \(account) AND zone = \(name) AND seq > \(after)
                UNION ALL
                SELECT record_name, seq, NULL FROM tombstone WHERE account = \(account) AND zone = \(name) AND seq > \(after)
                ORDER BY seq LIMIT \(limit)
                """, logger: logger)
            var found: [(name: String, seq: Int64, body: ByteBuffer?)] = []
            for try await (recordName, seq, body) in rows.decode((String, Int64, ByteBuffer?).self) { found.append((recordName, seq, body)) }
            let moreComing = found.count > pageSize
            var changed: [DocSyncCore.Record] = []
            var deleted: [RecordID] = []
            var position = after
            for row in found.prefix(pageSize) {
                if let body = row.body {
                    changed.append(try ModifyDecision.decode(Data(buffer: body, byteTransferStrategy: .noCopy)))
                } else {
                    deleted.append(RecordID(zone: zone, recordName: row.name))
                }
                position = row.seq
            }
            if !moreComing { position = max(position, state.lastSeq) }
            return ChangeSet(changed: changed, deleted: deleted,
                             token: StoreChangeToken(account: account, zone: name, incarnation: state.incarnation, seq: position).token,
                             moreComing: moreComing)
        }
    }

    public func fetchRecords(_ ids: [RecordID]) async throws(SyncError) -> [RecordID: DocSyncCore.Record] {
        guard let zone = ids.first?.zone else { return [:] }
        guard ids.allSatisfy({ $0.zone == zone }) else {
            throw SyncError(.invalidArguments, "fetchRecords takes ids of one zone at a time")
        }
        let account = self.account, logger = self.logger
        let names = ids.map(\.recordName)
        return try await store.withConnection("fetch \(ids.count) records of \(zone)") { connection in
            _ = try await Self.zoneState(of: zone, account: account, connection, logger)
            var found: [RecordID: DocSyncCore.Record] = [:]
            for version in try await Self.storedVersions(of: names, in: zone, account: account, table: "record", connection, logger).values {
                let record = try ModifyDecision.decode(version.body)
                found[record.id] = record
            }
            return found
        }
    }

    public func modifyRecords(_ batch: RecordBatch) async throws(SyncError) -> ModifyResult {
        guard batch.itemCount <= RecordBatch.maximumItems else {
            throw SyncError(.limitExceeded, "batch of \(batch.itemCount) items exceeds \(RecordBatch.maximumItems); split it and resend")
        }
        let failedBefore = batch.itemsFailingValidation
        let account = self.account, logger = self.logger
        return try await store.withConnection("modify \(batch.itemCount) records in \(batch.zone)") { connection in
            try await connection.transaction(logger) { connection in
                try await Self.apply(batch, failedBefore: failedBefore, account: account, now: .now, connection, logger)
            }
        }
    }

    // MARK: Usage

    public func usage() async throws(SyncError) -> StorageUsage {
        let account = self.account, logger = self.logger
        return try await store.withConnection("read usage") { connection in
            let rows = try await connection.statement("""
                SELECT (SELECT count(*) FROM zone WHERE account = \(account)),
                       (SELECT count(*) FROM record WHERE account = \(account)),
                       chunk_count, chunk_bytes
                FROM account WHERE id = \(account)
                """, logger: logger)
            for try await (zones, records, chunks, bytes) in rows.decode((Int64, Int64, Int64, Int64).self) {
                return StorageUsage(zoneCount: Int(zones), recordCount: Int(records), chunkCount: Int(chunks), chunkBytes: bytes)
            }
            return StorageUsage(zoneCount: 0, recordCount: 0, chunkCount: 0, chunkBytes: 0)
        }
    }

    /// The bytes of every chunk the account stores, from its counters: what a quota is
    /// checked against.
    public func storedChunkBytes() async throws(SyncError) -> Int64 {
        let account = self.account, logger = self.logger
        return try await store.withConnection("read usage") { connection in
            for try await bytes in try await connection.statement("SELECT chunk_bytes FROM account WHERE id = \(account)", logger: logger).decode(Int64.self) {
                return bytes
            }
            return 0
        }
    }

    // MARK: Notifications

    public func changeNotifications() -> AsyncStream<ChangeNotification> {
        store.notifier.stream(for: account)
    }
}

// MARK: - Statements shared by the operations

extension ScaleOutBackend {
    /// Takes `count` values of the account's sequence and returns the last; holds the
    /// account's row lock until the transaction ends, which serializes the account's
    /// writers, so sequence order is commit order and a reader that sees a change sees
    /// every earlier one.
    static func reserveSequence(_ count: Int, account: Int64, _ connection: PostgresConnection, _ logger: Logger) async throws -> Int64 {
        let step = Int64(count)
        let rows = try await connection.statement("UPDATE account SET seq = seq + \(step) WHERE id = \(account) RETURNING seq", logger: logger)
        for try await seq in rows.decode(Int64.self) { return seq }
        throw SyncError(.notAuthenticated, "the account no longer exists; ask the server's operator")
    }

    struct ZoneState {
        var incarnation: String
        var lastSeq: Int64
        var compactedThrough: Int64
    }

    /// The zone's incarnation, last change and compaction mark; `zoneNotFound` when it does
    /// not exist.
    static func zoneState(of zone: ZoneID, account: Int64, _ connection: PostgresConnection, _ logger: Logger) async throws -> ZoneState {
        let name = zone.name
        let rows = try await connection.statement("""
            SELECT incarnation, last_seq, compacted_through_seq FROM zone WHERE account = \(account) AND name = \(name)
            """, logger: logger)
        for try await (incarnation, lastSeq, compacted) in rows.decode((String, Int64, Int64).self) {
            return ZoneState(incarnation: incarnation, lastSeq: lastSeq, compactedThrough: compacted)
        }
        throw SyncError.zoneNotFound(zone)
    }

    /// The versions of `names` stored in `table` (`record` or `deleted_record`), by name.
    static func storedVersions(
        of names: [String], in zone: ZoneID, account: Int64, table: String, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [String: StoredVersion] {
        guard !names.isEmpty else { return [:] }
        let zoneName = zone.name
        let tag = table == "record" ? "change_tag" : "NULL::text"
        let rows = try await connection.statement("""
            SELECT record_name, \(unescaped: tag), seq, body FROM \(unescaped: table)
            WHERE account = \(account) AND zone = \(zoneName) AND record_name = ANY(\(names))
            """, logger: logger)
        var found: [String: StoredVersion] = [:]
        for try await (name, changeTag, seq, body) in rows.decode((String, String?, Int64, ByteBuffer).self) {
            found[name] = StoredVersion(changeTag: changeTag, seq: seq, body: Data(buffer: body, byteTransferStrategy: .noCopy))
        }
        return found
    }

    /// Sends the notification of a change of `zone`, delivered when the transaction commits.
    static func notify(account: Int64, zone: ZoneID, _ connection: PostgresConnection, _ logger: Logger) async throws {
        let payload = ScaleOutNotifier.payload(account: account, zone: zone)
        try await connection.statement("SELECT pg_notify(\(ScaleOutNotifier.channel), \(payload))", logger: logger)
    }
}
