import DocSyncCore
import Foundation
import GRDB

/// Recently Deleted in the embedded store (SPEC §4a), by the store algorithm over the
/// `deletedRecord` and `replacedVersion` tables; entries past the retention are removed
/// when the backend opens and before each collection (`pruneExpiredVersions`).
extension LocalBackend {
    public func listDeleted(in zone: ZoneID, since: Timestamp?) async throws(SyncError) -> [DeletedRecord] {
        let now = storeNow(), retention = self.retention
        return try await query("list Recently Deleted of \(zone)") { rows in
            try StoreAlgorithm.listDeleted(in: zone, since: since, now: now, retention: retention, rows)
        }
    }

    public func recoverDeleted(_ recoveries: [DeletedRecordRecovery], in zone: ZoneID) async throws(SyncError) -> ModifyResult {
        try StoreAlgorithm.admit(recoveries)
        let now = storeNow(), retention = self.retention
        let outcome = try await transact("recover \(recoveries.count) records in \(zone)") { rows in
            try StoreAlgorithm.recover(recoveries, in: zone, now: now, retention: retention, in: &rows)
        }
        if outcome.announces { committed() }
        return outcome.value
    }

    public func purgeDeleted(in zone: ZoneID, ids: [RecordID]?) async throws(SyncError) -> Int {
        let now = storeNow()
        let purged = try await transact("purge Recently Deleted of \(zone)") { rows in try StoreAlgorithm.purge(ids, in: zone, now: now, in: &rows) }.value
        if purged > 0 {
            logger.info("purged Recently Deleted", metadata: ["zone": "\(zone)", "records": "\(purged)"])
            collectSoon()  // their space comes back now rather than at the next scheduled collection
        }
        return purged
    }

    /// Removes the deleted records and replaced versions older than the retention. Returns
    /// how many of each went; their chunks become garbage once nothing else references them.
    @discardableResult
    public func pruneExpiredVersions() throws(SyncError) -> (deleted: Int, replaced: Int) {
        let cutoff = retention.versionCutoff(now: storeNow()).nanosecondsSince1970
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
}
