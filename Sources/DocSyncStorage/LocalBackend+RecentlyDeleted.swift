import DocSyncCore
import Foundation
import GRDB

/// Recently Deleted in the embedded store (SPEC §4a): `modifyRecords` keeps each deleted
/// record's last version in `deletedRecord` (and each replaced version in
/// `replacedVersion`); these calls list, recover and purge them. Entries older than
/// `StoreSettings.deletedRetention` are never listed or recovered, and are removed when the
/// backend opens and before each collection (`pruneExpiredVersions`).
extension LocalBackend {
    public func listDeleted(in zone: ZoneID, since: Timestamp?) async throws(SyncError) -> [DeletedRecord] {
        let cutoff = retentionCutoff()
        let after = max(cutoff + 1, since?.nanosecondsSince1970 ?? Int64.min)
        return try await read("list Recently Deleted of \(zone)") { db in
            try LocalBackend.requireZone(zone, db)
            return try Row.fetchAll(db, sql: """
                SELECT body, deletedAt, deletedBy FROM deletedRecord WHERE zone = ? AND deletedAt >= ?
                ORDER BY deletedAt DESC, recordName
                """, arguments: [zone.name, after]).map { row in
                DeletedRecord(record: try LocalBackend.decodeRecord(row[0]), deletedAt: Timestamp(nanosecondsSince1970: row[1]), deletedBy: row[2])
            }
        }
    }

    public func recoverDeleted(_ recoveries: [DeletedRecordRecovery], in zone: ZoneID) async throws(SyncError) -> ModifyResult {
        guard recoveries.count <= RecordBatch.maximumItems else {
            throw SyncError(.limitExceeded, "\(recoveries.count) records to recover in one call exceeds \(RecordBatch.maximumItems); split them and resend")
        }
        let cutoff = retentionCutoff()
        let result = try await write("recover \(recoveries.count) records in \(zone)") { db in
            try LocalBackend.recover(recoveries, in: zone, keptAfter: cutoff, db)
        }
        if !result.saved.isEmpty { committed() }
        return result
    }

    public func purgeDeleted(in zone: ZoneID, ids: [RecordID]?) async throws(SyncError) -> Int {
        let purged = try await write("purge Recently Deleted of \(zone)") { db in
            try LocalBackend.requireZone(zone, db)
            guard let ids else {
                try db.execute(sql: "DELETE FROM replacedVersion WHERE zone = ? AND recordName IN (SELECT recordName FROM deletedRecord WHERE zone = ?)",
                               arguments: [zone.name, zone.name])
                try db.execute(sql: "DELETE FROM deletedRecord WHERE zone = ?", arguments: [zone.name])
                return db.changesCount
            }
            var purged = 0
            for name in Set(ids.filter { $0.zone == zone }.map(\.recordName)) {
                try db.execute(sql: "DELETE FROM deletedRecord WHERE zone = ? AND recordName = ?", arguments: [zone.name, name])
                guard db.changesCount > 0 else { continue }
                purged += 1
                try db.execute(sql: "DELETE FROM replacedVersion WHERE zone = ? AND recordName = ?", arguments: [zone.name, name])
            }
            return purged
        }
        if purged > 0 {
            logger.info("purged Recently Deleted", metadata: ["zone": "\(zone)", "records": "\(purged)"])
            collectSoon()  // their space comes back now rather than at the next scheduled collection
        }
        return purged
    }

    /// The oldest time of deletion or replacement still kept, in nanoseconds since 1970: what
    /// is older has expired.
    func retentionCutoff(now: Date = Date()) -> Int64 {
        Timestamp(now.addingTimeInterval(-settings.deletedRetention)).nanosecondsSince1970
    }

    /// Removes the deleted records and replaced versions older than the retention. Returns
    /// how many of each went; their chunks become garbage once nothing else references them.
    @discardableResult
    public func pruneExpiredVersions() throws(SyncError) -> (deleted: Int, replaced: Int) {
        let cutoff = retentionCutoff()
        do {
            return try pool.write { db in
                try db.execute(sql: "DELETE FROM deletedRecord WHERE deletedAt <= ?", arguments: [cutoff])
                let deleted = db.changesCount
                try db.execute(sql: "DELETE FROM replacedVersion WHERE replacedAt <= ?", arguments: [cutoff])
                return (deleted, db.changesCount)
            }
        } catch {
            throw LocalBackend.map(error, "remove expired versions")
        }
    }

    /// The recover algorithm, inside the write transaction: each recovery its own result.
    static func recover(_ recoveries: [DeletedRecordRecovery], in zone: ZoneID, keptAfter cutoff: Int64, _ db: Database) throws -> ModifyResult {
        try requireZone(zone, db)
        var result = ModifyResult()
        var seen = Set<RecordID>()
        for id in recoveries.map(\.id) where !seen.insert(id).inserted {
            result.failed[id] = SyncError(.invalidArguments, "\(id) appears more than once in one recovery")
        }
        var lastSeq: Int64?
        let present = try db.directStatement(sql: PackStore.presenceQuery)
        for recovery in recoveries where result.failed[recovery.id] == nil {
            let id = recovery.id
            guard id.zone == zone else {
                result.failed[id] = SyncError(.invalidArguments, "\(id) is not in the zone \(zone) being recovered")
                continue
            }
            if let body = try Data.fetchOne(db.cachedStatement(sql: "SELECT body FROM record WHERE zone = ? AND recordName = ?"), arguments: [zone.name, id.recordName]) {
                result.failed[id] = .serverRecordChanged(try decodeRecord(body))
                continue
            }
            guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT body FROM deletedRecord WHERE zone = ? AND recordName = ? AND deletedAt > ?"),
                                             arguments: [zone.name, id.recordName, cutoff]) else {
                result.failed[id] = .notRecentlyDeleted(id)
                continue
            }
            let deleted = try decodeRecord(row[0])
            var record: DocSyncCore.Record
            do { record = try recovery.recovered(deleted) } catch {
                result.failed[id] = error
                continue
            }
            if let missing = try firstMissingChunk(of: record, present) {
                result.failed[id] = .deletedChunkGone(record, missing.digest)
                continue
            }
            let seq = try nextSeq(db)
            record.changeTag = ChangeTag(String(seq, radix: 36))
            try db.cachedStatement(sql: "INSERT INTO record (zone, recordName, changeTag, seq, body) VALUES (?, ?, ?, ?, ?)")
                .execute(arguments: [zone.name, id.recordName, record.changeTag!.rawValue, seq, CompactCoding.encode(record)])
            try db.cachedStatement(sql: "DELETE FROM tombstone WHERE zone = ? AND recordName = ?").execute(arguments: [zone.name, id.recordName])
            try db.cachedStatement(sql: "DELETE FROM deletedRecord WHERE zone = ? AND recordName = ?").execute(arguments: [zone.name, id.recordName])
            result.saved[id] = record
            lastSeq = seq
        }
        if let lastSeq {
            try db.execute(sql: "UPDATE zone SET lastSeq = ? WHERE name = ?", arguments: [lastSeq, zone.name])
        }
        return result
    }
}
