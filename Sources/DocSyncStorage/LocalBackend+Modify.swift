import DocSyncCore
import Foundation
import GRDB

/// The modify algorithm of the embedded backend, inside one write transaction: change tags,
/// the chunks a save names, tombstones, and the versions kept for Recently Deleted.
extension LocalBackend {
    /// The modify algorithm, inside the write transaction. Rolls back an atomic batch with
    /// any failure; otherwise commits whatever succeeded.
    ///
    /// A save's chunks are looked for here, in the transaction that saves it: a collection
    /// removes chunks in transactions of its own, so a record is never saved naming a chunk
    /// that is gone. A save that replaces a record keeps the replaced version, a deletion
    /// keeps the deleted one in Recently Deleted, both stamped `now`.
    static func apply(_ batch: RecordBatch, failedBefore: [RecordID: SyncError], now: Timestamp, _ db: Database) throws -> (ModifyResult, Database.TransactionCompletion) {
        try requireZone(batch.zone, db)
        var result = ModifyResult(failed: failedBefore)
        let zone = batch.zone.name
        let senderIsCurrent = try batch.knownToken.map { token in try zoneState(of: batch.zone, db).latest == (try? StoreChangeToken(token)) } ?? false
        var lastSeq: Int64?
        let present = try db.directStatement(sql: PackStore.presenceQuery)
        func current(_ id: RecordID) throws -> StoredVersion? {
            try Row.fetchOne(db.cachedStatement(sql: "SELECT changeTag, seq, body FROM record WHERE zone = ? AND recordName = ?"),
                             arguments: [zone, id.recordName])
                .map { StoredVersion(changeTag: ChangeTag($0[0] as String), seq: $0[1], body: $0[2]) }
        }
        for var record in batch.saves where result.failed[record.id] == nil {
            let existing = try current(record.id)
            if let existing, existing.changeTag != record.changeTag {
                result.failed[record.id] = .serverRecordChanged(try decodeRecord(existing.body))
                continue
            }
            if existing == nil, record.changeTag != nil {
                result.failed[record.id] = SyncError(.unknownItem, "\(record.id) at \(record.path) was deleted on the server; save it without a change tag to bring it back")
                continue
            }
            if let missing = try firstMissingChunk(of: record, present) {
                result.failed[record.id] = SyncError(.chunkNotFound, "\(record.path): chunk \(missing.digest.shortHex) of its asset is not stored; upload the chunks first", digest: missing.digest)
                continue
            }
            let seq = try nextSeq(db)
            record.changeTag = ChangeTag(String(seq, radix: 36))
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO record (zone, recordName, changeTag, seq, body) VALUES (?, ?, ?, ?, ?)").execute(arguments: [zone, record.id.recordName, record.changeTag!.rawValue, seq, CompactCoding.encode(record)])
            try db.cachedStatement(sql: "DELETE FROM tombstone WHERE zone = ? AND recordName = ?").execute(arguments: [zone, record.id.recordName])
            if let existing {
                try keepReplaced(existing, of: record.id, at: now, db)
            } else if let deleted = try takeFromRecentlyDeleted(record.id, db) {
                // Saved again after its deletion: it lives, and its deleted version is what it replaced.
                try keepReplaced(deleted, of: record.id, at: now, db)
            }
            result.saved[record.id] = record
            lastSeq = seq
        }
        for deletion in batch.deletions where result.failed[deletion.id] == nil {
            guard let existing = try current(deletion.id) else {
                result.deleted.insert(deletion.id)  // already gone: deleting is idempotent
                continue
            }
            if let base = deletion.baseTag, base != existing.changeTag {
                result.failed[deletion.id] = .serverRecordChanged(try decodeRecord(existing.body))
                continue
            }
            let seq = try nextSeq(db)
            try db.cachedStatement(sql: "DELETE FROM record WHERE zone = ? AND recordName = ?").execute(arguments: [zone, deletion.id.recordName])
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO tombstone (zone, recordName, seq, deletedAt) VALUES (?, ?, ?, ?)").execute(arguments: [zone, deletion.id.recordName, seq, now.date.timeIntervalSince1970])
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO deletedRecord (zone, recordName, seq, deletedAt, deletedBy, body) VALUES (?, ?, ?, ?, ?, ?)")
                .execute(arguments: [zone, deletion.id.recordName, existing.seq, now.nanosecondsSince1970, deletion.device ?? "", existing.body])
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

    /// The first of `record`'s chunks (or top-level manifest nodes) that is not stored,
    /// probed with `present` (a `PackStore.presenceQuery` statement); `nil` when all are.
    static func firstMissingChunk(of record: DocSyncCore.Record, _ present: DirectStatement) throws -> ChunkRef? {
        try record.asset?.entries.first { entry in
            present.bind(1, entry.digest.indexKey)
            present.bind(2, entry.digest)
            return try !present.yieldsRow()
        }
    }

    /// One stored version of a record: its tag, its sequence value and its encoded body.
    struct StoredVersion {
        var changeTag: ChangeTag?
        var seq: Int64
        var body: Data
    }

    /// Keeps `version` of `id` as replaced at `time`, for the retention.
    static func keepReplaced(_ version: StoredVersion, of id: RecordID, at time: Timestamp, _ db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO replacedVersion (zone, recordName, seq, replacedAt, body) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [id.zone.name, id.recordName, version.seq, time.nanosecondsSince1970, version.body])
    }

    /// Removes `id` from Recently Deleted and returns the version it held there, if any.
    static func takeFromRecentlyDeleted(_ id: RecordID, _ db: Database) throws -> StoredVersion? {
        try Row.fetchOne(db.cachedStatement(sql: "DELETE FROM deletedRecord WHERE zone = ? AND recordName = ? RETURNING seq, body"),
                         arguments: [id.zone.name, id.recordName])
            .map { StoredVersion(changeTag: nil, seq: $0[0], body: $0[1]) }
    }
}
