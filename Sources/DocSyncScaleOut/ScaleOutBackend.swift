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
/// Its records are decided by the store algorithm every store runs (`StoreAlgorithm`, over
/// `ScaleOutRows`): change tags and change tokens from the account's sequence, per-item
/// results, atomic batches, pages, tombstones, Recently Deleted and kept versions; quotas
/// come from usage counters.
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
        let now = storeNow()
        try await transact("create zone \(zone)") { rows in try StoreAlgorithm.createZone(zone, now: now, in: &rows) }
    }

    public func deleteZone(_ zone: ZoneID) async throws(SyncError) {
        let now = storeNow()
        try await transact("delete zone \(zone)") { rows in try StoreAlgorithm.deleteZone(zone, now: now, in: &rows) }
    }

    public func listZones() async throws(SyncError) -> [ZoneID] {
        try await query("list zones") { rows in try StoreAlgorithm.listZones(rows) }
    }

    // MARK: Records

    public func fetchChanges(in zone: ZoneID, since token: ChangeToken?, limit: Int) async throws(SyncError) -> ChangeSet {
        // The zone is read first, then the changes: a change committed in between is in the
        // page and not yet in the zone's last_seq, which only makes the token less far ahead.
        try await query("fetch changes of \(zone)") { rows in try StoreAlgorithm.changes(in: zone, since: token, limit: limit, rows) }
    }

    public func fetchRecords(_ ids: [RecordID]) async throws(SyncError) -> [RecordID: DocSyncCore.Record] {
        try await query("fetch \(ids.count) records") { rows in try StoreAlgorithm.records(ids, rows) }
    }

    public func modifyRecords(_ batch: RecordBatch) async throws(SyncError) -> ModifyResult {
        let failed = try StoreAlgorithm.admit(batch)
        let now = storeNow()
        return try await transact("modify \(batch.itemCount) records in \(batch.zone)") { rows in
            try StoreAlgorithm.modify(batch, failedBefore: failed, now: now, in: &rows)
        }
    }

    // MARK: The store algorithm over PostgreSQL

    /// Runs an operation of the store algorithm in one transaction on the account's rows
    /// (`ScaleOutRows`, answered round trip by round trip): committed when it wrote, rolled
    /// back otherwise. Its notification, if any, is delivered at the commit.
    @discardableResult
    func transact<T: Sendable>(_ what: @autoclosure () -> String, _ operation: @escaping (inout AnsweredRows) throws -> StoreOutcome<T>) async throws(SyncError) -> T {
        let account = self.account, logger = self.logger
        return try await store.withConnection(what()) { connection in
            try await connection.transaction(logger) { connection in
                let outcome = try await AnsweredRows.run(operation, over: ScaleOutRows(connection: connection, account: account, logger: logger))
                return (outcome.value, commit: outcome.wrote)
            }
        }
    }

    /// Runs a reading operation of the store algorithm on the account's rows, outside a transaction.
    func query<T: Sendable>(_ what: @autoclosure () -> String, _ operation: @escaping (AnsweredRows) throws -> T) async throws(SyncError) -> T {
        let account = self.account, logger = self.logger
        return try await store.withConnection(what()) { connection in
            try await AnsweredRows.run({ rows in try operation(rows) }, over: ScaleOutRows(connection: connection, account: account, logger: logger))
        }
    }

    /// The time the store stamps on what it writes (deletions, replaced versions).
    func storeNow() -> Timestamp { Timestamp(Date()) }

    // MARK: Usage

    public func usage() async throws(SyncError) -> StorageUsage {
        let account = self.account, logger = self.logger
        return try await store.withConnection("read usage") { connection in
            let rows = try await connection.statement("""
                SELECT (SELECT count(*) FROM zone WHERE account = \(account) AND moved_to IS NULL),
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

    /// Through PostgreSQL's `NOTIFY`, so every instance's streams of the account hear it.
    public func announce(_ zone: ZoneID) async throws(SyncError) {
        let account = self.account, logger = self.logger
        try await store.withConnection("announce a change of \(zone)") { connection in
            try await Self.notify(account: account, zone: zone, connection, logger)
        }
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

    /// Sends the notification of a change of `zone`, delivered when the transaction commits.
    static func notify(account: Int64, zone: ZoneID, _ connection: PostgresConnection, _ logger: Logger) async throws {
        let payload = ScaleOutNotifier.payload(account: account, zone: zone)
        try await connection.statement("SELECT pg_notify(\(ScaleOutNotifier.channel), \(payload))", logger: logger)
    }
}
