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

    /// Item errors found without looking at stored state: wrong zone, invalid record, an id
    /// named twice in one batch.
    static func validate(_ batch: RecordBatch) -> [RecordID: SyncError] {
        var failed: [RecordID: SyncError] = [:]
        var seen = Set<RecordID>()
        let ids = batch.saves.map(\.id) + batch.deletions.map(\.id)
        for id in ids where !seen.insert(id).inserted {
            failed[id] = SyncError(.invalidArguments, "\(id) appears more than once in one batch")
        }
        for id in ids where id.zone != batch.zone {
            failed[id] = SyncError(.invalidArguments, "\(id) is not in the batch's zone \(batch.zone)")
        }
        for record in batch.saves where failed[record.id] == nil {
            do { try record.validate() } catch { failed[record.id] = error }
        }
        return failed
    }

    /// The modify algorithm, inside the write transaction. Rolls back an atomic batch with
    /// any failure; otherwise commits whatever succeeded.
    static func apply(_ batch: RecordBatch, failedBefore: [RecordID: SyncError], _ db: Database) throws -> (ModifyResult, Database.TransactionCompletion) {
        try requireZone(batch.zone, db)
        var result = ModifyResult(failed: failedBefore)
        let zone = batch.zone.name
        let senderIsCurrent = try batch.knownToken.map { token in try zoneState(of: batch.zone, db).latest == (try? LocalChangeToken(token)) } ?? false
        var lastSeq: Int64?
        func current(_ id: RecordID) throws -> DocSyncCore.Record? {
            guard let body = try Data.fetchOne(db.cachedStatement(sql: "SELECT body FROM record WHERE zone = ? AND recordName = ?"), arguments: [zone, id.recordName]) else {
                return nil
            }
            return try decodeRecord(body)
        }
        for var record in batch.saves where result.failed[record.id] == nil {
            let existing = try current(record.id)
            if let existing, existing.changeTag != record.changeTag {
                result.failed[record.id] = .serverRecordChanged(existing)
                continue
            }
            if existing == nil, record.changeTag != nil {
                result.failed[record.id] = SyncError(.unknownItem, "\(record.id) at \(record.path) was deleted on the server; save it without a change tag to bring it back")
                continue
            }
            let seq = try nextSeq(db)
            record.changeTag = ChangeTag(String(seq, radix: 36))
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO record (zone, recordName, changeTag, seq, body) VALUES (?, ?, ?, ?, ?)").execute(arguments: [zone, record.id.recordName, record.changeTag!.rawValue, seq, CompactCoding.encode(record)])
            try db.cachedStatement(sql: "DELETE FROM tombstone WHERE zone = ? AND recordName = ?").execute(arguments: [zone, record.id.recordName])
            result.saved[record.id] = record
            lastSeq = seq
        }
        for deletion in batch.deletions where result.failed[deletion.id] == nil {
            guard let existing = try current(deletion.id) else {
                result.deleted.insert(deletion.id)  // already gone: deleting is idempotent
                continue
            }
            if let base = deletion.baseTag, base != existing.changeTag {
                result.failed[deletion.id] = .serverRecordChanged(existing)
                continue
            }
            let seq = try nextSeq(db)
            try db.cachedStatement(sql: "DELETE FROM record WHERE zone = ? AND recordName = ?").execute(arguments: [zone, deletion.id.recordName])
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO tombstone (zone, recordName, seq, deletedAt) VALUES (?, ?, ?, ?)").execute(arguments: [zone, deletion.id.recordName, seq, Date().timeIntervalSince1970])
            result.deleted.insert(deletion.id)
            lastSeq = seq
        }
        if batch.atomic, !result.failed.isEmpty {
            let failedIDs = result.failed.keys.map(\.description).sorted().joined(separator: ", ")
            for id in Array(result.saved.keys) + Array(result.deleted) {
                result.failed[id] = SyncError(.batchRequestFailed, "\(id) was not saved: the atomic batch failed because of \(failedIDs)")
            }
            result.saved = [:]
            result.deleted = []
            return (result, .rollback)
        }
        if let lastSeq {
            try db.cachedStatement(sql: "UPDATE zone SET lastSeq = ? WHERE name = ?").execute(arguments: [lastSeq, zone])
        }
        if senderIsCurrent { result.token = try zoneState(of: batch.zone, db).latest.token }
        return (result, .commit)
    }

    /// The token of a client that has every change of `zone`, and the last change sequence
    /// whose deletions were compacted away (older tokens have expired). Throws
    /// `zoneNotFound` when the zone does not exist.
    static func zoneState(of zone: ZoneID, _ db: Database) throws -> (latest: LocalChangeToken, compactedThrough: Int64) {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT incarnation, lastSeq, compactedThroughSeq FROM zone WHERE name = ?"),
                                         arguments: [zone.name]) else {
            throw SyncError.zoneNotFound(zone)
        }
        return (LocalChangeToken(zone: zone.name, incarnation: row[0], seq: row[1]), row[2])
    }

    /// One page of changes of `zone` after `since`.
    static func changes(in zone: ZoneID, since: LocalChangeToken?, pageSize: Int, _ db: Database) throws -> ChangeSet {
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
                         token: LocalChangeToken(zone: zone.name, incarnation: incarnation, seq: position).token,
                         moreComing: moreComing)
    }
}
