import DocSyncCore
import DocSyncStorage
import Foundation

/// Zones, records, changes and usage: one JSON request each.
extension HTTPBackend {
    public func createZone(_ zone: ZoneID) async throws(SyncError) {
        _ = try await send(.PUT, WireRoute.zone(zone), context: "create zone \(zone)")
    }

    public func deleteZone(_ zone: ZoneID) async throws(SyncError) {
        _ = try await send(.DELETE, WireRoute.zone(zone), context: "delete zone \(zone)")
    }

    /// One request; the server answers once the moved zone's chunks are collected, which for
    /// a large folder may take a while (`Options.readTimeout` bounds the wait: a retry after
    /// it finds the zone moved and succeeds).
    public func moveZone(_ zone: ZoneID, to target: ZoneID) async throws(SyncError) {
        try StoreAlgorithm.admitMove(zone, to: target)
        let context = "move zone \(zone) into \(target)"
        _ = try await send(.POST, WireRoute.move(zone), body: try Self.encode(WireBody.ZoneMove(target: target), context: context),
                           contentType: WireRoute.json, context: context)
    }

    public func listZones() async throws(SyncError) -> [ZoneID] {
        try await fetchJSON(WireRoute.zones, as: WireBody.Zones.self, context: "list zones").zones
    }

    public func modifyRecords(_ batch: RecordBatch) async throws(SyncError) -> ModifyResult {
        guard batch.itemCount <= RecordBatch.maximumItems else {
            throw SyncError(.limitExceeded, "batch of \(batch.itemCount) items exceeds \(RecordBatch.maximumItems); split it and resend")
        }
        let answer = try await sendJSON(.POST, WireRoute.modify(batch.zone), batch, as: WireBody.ModifyAnswer.self,
                                        context: "modify \(batch.itemCount) records in \(batch.zone)")
        return try answer.result(for: batch)
    }

    public func fetchChanges(in zone: ZoneID, since token: ChangeToken?, limit: Int) async throws(SyncError) -> ChangeSet {
        var query = [("limit", String(max(1, min(limit, StorageLimits.maximumPageSize))))]
        if let token { query.append(("since", WireRoute.encodeToken(token))) }
        return try await fetchJSON(WireRoute.changes(zone), query: query, as: ChangeSet.self, context: "fetch changes of \(zone)")
    }

    public func fetchRecords(_ ids: [RecordID]) async throws(SyncError) -> [RecordID: Record] {
        var found: [RecordID: Record] = [:]
        let byZone = Dictionary(grouping: ids, by: \.zone)
        for (zone, zoneIDs) in byZone.sorted(by: { $0.key < $1.key }) {
            let names = Array(Set(zoneIDs.map(\.recordName))).sorted()
            for start in stride(from: 0, to: names.count, by: WireLimits.recordNamesPerLookup) {
                let slice = Array(names[start ..< min(start + WireLimits.recordNamesPerLookup, names.count)])
                let answer = try await sendJSON(.POST, WireRoute.lookup(zone), WireBody.RecordNames(recordNames: slice),
                                                as: WireBody.Records.self, context: "fetch \(slice.count) records of \(zone)")
                for record in answer.records { found[record.id] = record }
            }
        }
        return found
    }

    public func usage() async throws(SyncError) -> StorageUsage {
        try await fetchJSON(WireRoute.usage, as: StorageUsage.self, context: "read usage")
    }
}
