import DocSyncCore
import DocSyncStorage

// PLACEHOLDER — replaced by the backend work on Recently Deleted (issue 23 point 5) before landing.
extension HTTPBackend {
    public func listDeleted(in zone: ZoneID, since: Timestamp?) async throws(SyncError) -> [DeletedRecord] {
        throw SyncError(.internalError, "Recently Deleted is not implemented yet")
    }

    public func recoverDeleted(_ recoveries: [DeletedRecordRecovery], in zone: ZoneID) async throws(SyncError) -> ModifyResult {
        throw SyncError(.internalError, "Recently Deleted is not implemented yet")
    }

    public func purgeDeleted(in zone: ZoneID, ids: [RecordID]?) async throws(SyncError) -> Int {
        throw SyncError(.internalError, "Recently Deleted is not implemented yet")
    }
}
