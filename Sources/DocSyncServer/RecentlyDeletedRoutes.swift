import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import Hummingbird

/// Recently Deleted (see `WireRoute.deleted`): list, recover, purge. Each route validates its
/// input like the others — names, paths and device names each on their own, so a recovery
/// with a bad path fails alone — and calls the storage the request may reach (`ZoneGate`): listing is reading, recovering
/// needs read-write, purging is the owner's.
struct RecentlyDeletedRoutes: Sendable {
    let records: RecordRoutes

    func register(on api: RouterGroup<ServerRequestContext>) {
        api.get("zones/{zone}/deleted") { request, context in
            let zone = try RequestInput.zone(context)
            let since = try request.uri.queryParameters.get("since").map { (text) throws(SyncError) -> Timestamp in
                guard let nanoseconds = Int64(text) else {
                    throw SyncError(.invalidArguments, "query item since=\(text.prefix(40)) is not a time in nanoseconds since 1970")
                }
                return Timestamp(nanosecondsSince1970: nanoseconds)
            }
            let deleted = try await records.backend(context, .read, zone).listDeleted(in: zone, since: since)
            return try Responses.json(WireBody.DeletedRecords(deleted: deleted))
        }
        api.post("zones/{zone}/deleted/recover") { request, context in
            let zone = try RequestInput.zone(context)
            let recoveries = try await RequestInput.json(WireBody.Recoveries.self, request, limit: WireLimits.recoverBody).recoveries
            guard recoveries.count <= RecordBatch.maximumItems else {
                throw SyncError(.limitExceeded, "\(recoveries.count) records to recover in one request; send at most \(RecordBatch.maximumItems)")
            }
            let (valid, refused) = Self.checked(recoveries, editor: try ZoneGate.caller(context))
            var result = try await records.backend(context, .recover, zone).recoverDeleted(valid, in: zone)
            result.failed.merge(refused) { backend, _ in backend }
            return try Responses.json(WireBody.RecoverAnswer(result))
        }
        api.post("zones/{zone}/deleted/purge") { request, context in
            let zone = try RequestInput.zone(context)
            let purge = try await RequestInput.json(WireBody.Purge.self, request, limit: WireLimits.purgeBody)
            guard !(purge.all && !purge.recordNames.isEmpty) else {
                throw SyncError(.invalidArguments, "a purge names records or says all, not both")
            }
            guard purge.recordNames.count <= WireLimits.recordNamesPerPurge else {
                throw SyncError(.limitExceeded, "\(purge.recordNames.count) record names in one purge; send at most \(WireLimits.recordNamesPerPurge)")
            }
            var ids: [RecordID] = []
            for name in purge.recordNames { ids.append(try RecordID(zone: zone, validating: name)) }
            let purged = try await records.backend(context, .purge, zone).purgeDeleted(in: zone, ids: purge.all ? nil : ids)
            return try Responses.json(WireBody.Purged(purged: purged))
        }
    }

    /// The recoveries whose path and device are valid, made by the account `editor`, and the
    /// error of each other one.
    static func checked(_ recoveries: [WireBody.Recovery], editor: String) -> ([DeletedRecordRecovery], [RecordID: SyncError]) {
        var valid: [DeletedRecordRecovery] = []
        var refused: [RecordID: SyncError] = [:]
        for recovery in recoveries {
            if let problem = DeviceName.problem(with: recovery.device) {
                refused[recovery.id] = SyncError(.invalidArguments, "cannot recover \(recovery.id): its device name \(problem)")
                continue
            }
            var path: RelativePath?
            if let text = recovery.path {
                do { path = try RelativePath(validating: text) } catch {
                    refused[recovery.id] = SyncError(.invalidArguments, "cannot recover \(recovery.id) at \(text.prefix(200).debugDescription): \(error.message)")
                    continue
                }
            }
            valid.append(DeletedRecordRecovery(id: recovery.id, path: path, device: recovery.device, editor: editor))
        }
        return (valid, refused)
    }
}
