import DocSyncCore
import DocSyncStorage
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import PostgresNIO

/// Recently Deleted in the scale-out store (SPEC §4a), by the store algorithm over the
/// `deleted_record` and `replaced_version` tables; entries past the retention are removed
/// by each collection.
extension ScaleOutBackend {
    public func listDeleted(in zone: ZoneID, since: Timestamp?) async throws(SyncError) -> [DeletedRecord] {
        let now = storeNow(), retention = store.retention
        return try await query("list Recently Deleted of \(zone)") { rows in
            try StoreAlgorithm.listDeleted(in: zone, since: since, now: now, retention: retention, rows)
        }
    }

    public func recoverDeleted(_ recoveries: [DeletedRecordRecovery], in zone: ZoneID) async throws(SyncError) -> ModifyResult {
        try StoreAlgorithm.admit(recoveries)
        let now = storeNow(), retention = store.retention
        return try await transact("recover \(recoveries.count) records in \(zone)") { rows in
            try StoreAlgorithm.recover(recoveries, in: zone, now: now, retention: retention, in: &rows)
        }
    }

    public func purgeDeleted(in zone: ZoneID, ids: [RecordID]?) async throws(SyncError) -> Int {
        let now = storeNow()
        let purged = try await transact("purge Recently Deleted of \(zone)") { rows in try StoreAlgorithm.purge(ids, in: zone, now: now, in: &rows) }
        if purged > 0 { logger.info("purged Recently Deleted", metadata: ["zone": "\(zone)", "records": "\(purged)", "account": "\(account)"]) }
        return purged
    }
}
