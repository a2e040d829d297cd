import DocSyncCore
import Foundation
import GRDB

/// The SQL of the embedded backend: transactions, the modify and fetch algorithms.
extension LocalBackend {
    /// Runs `body` in an IMMEDIATE transaction (the write lock is taken up front, so a
    /// read-then-write never fails to upgrade under another process's commit), mapping every
    /// error to `SyncError`. `body` may throw `SyncError` to roll back.
    func write<T: Sendable>(_ what: String, _ body: @escaping @Sendable (Database) throws -> T) async throws(SyncError) -> T {
        try await writeDeciding(what) { db in (try body(db), .commit) }
    }

    /// Like `write`, for a body that decides itself whether to commit.
    func writeDeciding<T: Sendable>(_ what: String, _ body: @escaping @Sendable (Database) throws -> (T, Database.TransactionCompletion)) async throws(SyncError) -> T {
        do {
            return try await pool.writeWithoutTransaction { db in
                var value: T?
                try db.inTransaction(.immediate) {
                    let (result, completion) = try body(db)
                    value = result
                    return completion
                }
                return value!
            }
        } catch {
            throw LocalBackend.map(error, what)
        }
    }

    /// Runs `body` on a consistent snapshot.
    func read<T: Sendable>(_ what: String, _ body: @escaping @Sendable (Database) throws -> T) async throws(SyncError) -> T {
        do {
            return try await pool.read(body)
        } catch {
            throw LocalBackend.map(error, what)
        }
    }

    /// Classifies any error of the database layer.
    static func map(_ error: any Error, _ what: String) -> SyncError {
        if let error = error as? SyncError { return error }
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                return SyncError(.zoneBusy, "\(what): the backend database is busy with another writer; retry shortly")
            case .SQLITE_FULL:
                return SyncError(.quotaExceeded, "\(what): the backend's disk is full; free space on it")
            default:
                return SyncError(.internalError, "\(what): \(error.message ?? error.description)")
            }
        }
        return SyncError(.internalError, "\(what): \(error)")
    }

    /// The next value of the database-wide sequence.
    static func nextSeq(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "UPDATE sequence SET value = value + 1 WHERE id = 1 RETURNING value"))!
    }

    static func requireZone(_ zone: ZoneID, _ db: Database) throws {
        guard try Bool.fetchOne(db, sql: "SELECT 1 FROM zone WHERE name = ?", arguments: [zone.name]) != nil else {
            throw SyncError.zoneNotFound(zone)
        }
    }

    static func decodeRecord(_ body: Data) throws -> DocSyncCore.Record {
        do {
            return try CompactCoding.decodeRecord(body)
        } catch {
            throw SyncError(.internalError, "a stored record cannot be decoded: \(error)")
        }
    }

    /// The token of a client that has every change of `zone`, and the last change sequence
    /// whose deletions were compacted away (older tokens have expired). Throws
    /// `zoneNotFound` when the zone does not exist.
    static func zoneState(of zone: ZoneID, _ db: Database) throws -> (latest: StoreChangeToken, compactedThrough: Int64) {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT incarnation, lastSeq, compactedThroughSeq FROM zone WHERE name = ?"),
                                         arguments: [zone.name]) else {
            throw SyncError.zoneNotFound(zone)
        }
        return (StoreChangeToken(zone: zone.name, incarnation: row[0], seq: row[1]), row[2])
    }

    /// One page of changes of `zone` after `since`.
    static func changes(in zone: ZoneID, since: StoreChangeToken?, pageSize: Int, _ db: Database) throws -> ChangeSet {
        let (latest, compactedThrough) = try zoneState(of: zone, db)
        let incarnation = latest.incarnation, lastSeq = latest.seq
        var after: Int64 = 0
        if let since {
            guard since.zone == zone.name, since.incarnation == incarnation else {
                throw SyncError(.changeTokenExpired, "change token is for \(since.zone == zone.name ? "an earlier incarnation of" : "another zone than") \(zone); fetch from the beginning")
            }
            guard since.seq >= compactedThrough else {
                throw SyncError(.changeTokenExpired, "change token of \(zone) predates compacted deletions; fetch from the beginning and reconcile")
            }
            after = since.seq
        }
        let rows = try Row.fetchAll(db, sql: """
            SELECT recordName, seq, body FROM record WHERE zone = ? AND seq > ?
            UNION ALL
            SELECT recordName, seq, NULL FROM tombstone WHERE zone = ? AND seq > ?
            ORDER BY seq LIMIT ?
            """, arguments: [zone.name, after, zone.name, after, pageSize + 1])
        let moreComing = rows.count > pageSize
        var changed: [DocSyncCore.Record] = []
        var deleted: [RecordID] = []
        var position = after
        for row in rows.prefix(pageSize) {
            if let body = row["body"] as Data? {
                changed.append(try decodeRecord(body))
            } else {
                deleted.append(RecordID(zone: zone, recordName: row["recordName"]))
            }
            position = row["seq"]
        }
        if !moreComing { position = max(position, lastSeq) }
        return ChangeSet(changed: changed, deleted: deleted,
                         token: StoreChangeToken(zone: zone.name, incarnation: incarnation, seq: position).token,
                         moreComing: moreComing)
    }
}
