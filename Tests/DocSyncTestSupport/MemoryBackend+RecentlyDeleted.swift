import DocSyncCore
import DocSyncStorage
import Foundation

/// Recently Deleted in `MemoryBackend` (SPEC §4a), by the store algorithm at the times of
/// the injected clock; a collection removes what expired.
extension MemoryBackend {
    public func listDeleted(in zone: ZoneID, since: Timestamp?) async throws(SyncError) -> [DeletedRecord] {
        let retention = self.retention
        return try query { state, now in try StoreAlgorithm.listDeleted(in: zone, since: since, now: now, retention: retention, state) }
    }

    public func recoverDeleted(_ recoveries: [DeletedRecordRecovery], in zone: ZoneID) async throws(SyncError) -> ModifyResult {
        try StoreAlgorithm.admit(recoveries)
        let retention = self.retention
        let outcome = try transact { state, now in try StoreAlgorithm.recover(recoveries, in: zone, now: now, retention: retention, in: &state) }
        if outcome.announces { announce([zone]) }
        return outcome.value
    }

    /// Empties Recently Deleted as the protocol says, with the versions the purged records
    /// replaced; when that removed anything, a collection runs at once (the embedded
    /// backend starts one soon after), so their chunks go unless kept otherwise.
    public func purgeDeleted(in zone: ZoneID, ids: [RecordID]?) async throws(SyncError) -> Int {
        let settings = self.settings
        return try transact { state, now in
            let outcome = try StoreAlgorithm.purge(ids, in: zone, now: now, in: &state)
            if outcome.value > 0 { state.collectGarbage(at: now, settings: settings) }
            return outcome
        }.value
    }
}
