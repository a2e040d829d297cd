import DocSyncCore
import DocSyncStorage

/// Recently Deleted: one JSON request per call (a purge of many names, one per
/// `WireLimits.recordNamesPerPurge`).
extension HTTPBackend {
    public func listDeleted(in zone: ZoneID, since: Timestamp?) async throws(SyncError) -> [DeletedRecord] {
        let query = since.map { [("since", String($0.nanosecondsSince1970))] } ?? []
        return try await fetchJSON(WireRoute.deleted(zone), query: query, as: WireBody.DeletedRecords.self,
                                   context: "list Recently Deleted of \(zone)").deleted
    }

    public func recoverDeleted(_ recoveries: [DeletedRecordRecovery], in zone: ZoneID) async throws(SyncError) -> ModifyResult {
        guard recoveries.count <= RecordBatch.maximumItems else {
            throw SyncError(.limitExceeded, "\(recoveries.count) records to recover in one call exceeds \(RecordBatch.maximumItems); split them and resend")
        }
        let answer = try await sendJSON(.POST, WireRoute.recover(zone), WireBody.Recoveries(recoveries: recoveries.map(WireBody.Recovery.init)),
                                        as: WireBody.RecoverAnswer.self, context: "recover \(recoveries.count) records in \(zone)")
        return try answer.result(for: recoveries)
    }

    public func purgeDeleted(in zone: ZoneID, ids: [RecordID]?) async throws(SyncError) -> Int {
        let context = "purge Recently Deleted of \(zone)"
        guard let ids else {
            return try await sendJSON(.POST, WireRoute.purge(zone), WireBody.Purge(all: true, recordNames: []), as: WireBody.Purged.self, context: context).purged
        }
        let names = Array(Set(ids.filter { $0.zone == zone }.map(\.recordName))).sorted()
        var purged = 0
        for start in stride(from: 0, to: names.count, by: WireLimits.recordNamesPerPurge) {
            let slice = Array(names[start ..< min(start + WireLimits.recordNamesPerPurge, names.count)])
            purged += try await sendJSON(.POST, WireRoute.purge(zone), WireBody.Purge(all: false, recordNames: slice), as: WireBody.Purged.self, context: context).purged
        }
        return purged
    }
}
