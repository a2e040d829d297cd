import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import Hummingbird

/// Zones, records, changes and usage (see `WireRoute`): each route decodes and validates its
/// input, calls the storage the request may reach (`ZoneGate`: the caller's own, or under
/// `/v1/shared/{owner}` the zones shared with it), and answers with JSON.
struct RecordRoutes: Sendable {
    let store: any ServerStore
    let quotas: AccountQuotas
    var gate: ZoneGate { ZoneGate(store: store) }

    /// Registers the routes of a database: the caller's own (`/v1`), or with `shared` those
    /// of zones shared with it (`/v1/shared/{owner}`), which have no usage route.
    func register(on api: RouterGroup<ServerRequestContext>, shared: Bool = false) {
        api.get("zones") { _, context in
            try Responses.json(WireBody.Zones(zones: try await self.gate.zones(context)))
        }
        api.put("zones/{zone}") { _, context in
            let zone = try RequestInput.zone(context)
            try await self.backend(context, .manageZone, zone).createZone(zone)
            return Responses.noContent
        }
        api.delete("zones/{zone}") { _, context in
            let zone = try RequestInput.zone(context)
            try await self.backend(context, .manageZone, zone).deleteZone(zone)
            return Responses.noContent
        }
        api.post("zones/{zone}/move") { request, context in
            let zone = try RequestInput.zone(context)
            let target = try await RequestInput.json(WireBody.ZoneMove.self, request, limit: WireLimits.moveBody).target
            try await self.backend(context, .manageZone, zone).moveZone(zone, to: target)
            // A shared zone's participants take part in the zone it moved to (SPEC §11, §13).
            try await self.store.carryShare(ShareName(owner: try ZoneGate.owner(context), zone: zone), to: target)
            return Responses.noContent
        }
        api.post("zones/{zone}/modify") { request, context in
            let zone = try RequestInput.zone(context)
            let batch = try await RequestInput.json(RecordBatch.self, request, limit: WireLimits.modifyBody)
            guard batch.zone == zone else {
                throw SyncError(.invalidArguments, "the batch is for zone \(batch.zone) but was sent to zone \(zone)")
            }
            guard batch.itemCount <= RecordBatch.maximumItems else {
                throw SyncError(.limitExceeded, "batch of \(batch.itemCount) items exceeds \(RecordBatch.maximumItems); split it and resend")
            }
            let backend = try await self.backend(context, .save, zone)
            if !batch.saves.isEmpty { try await quotas.refuseSavesOverQuota(of: try ZoneGate.owner(context), in: backend) }
            // A deletion that names no device was made by the token's; every save was made by
            // the caller's account, whatever the record says (SPEC §11's lastEditorName).
            var named = batch
            for index in named.deletions.indices where named.deletions[index].device == nil {
                named.deletions[index].device = context.device
            }
            let editor = try ZoneGate.caller(context)
            for index in named.saves.indices { named.saves[index].lastEditorName = editor }
            return try Responses.json(WireBody.ModifyAnswer(try await backend.modifyRecords(named), editor: named.saves.isEmpty ? nil : editor))
        }
        api.get("zones/{zone}/changes") { request, context in
            let zone = try RequestInput.zone(context)
            let limit = try RequestInput.integer(request, "limit", in: 1 ... Int(Int32.max), default: StorageLimits.maximumPageSize)
            let token = try request.uri.queryParameters.get("since").map { (text) throws(SyncError) in try WireRoute.decodeToken(text) }
            return try Responses.json(try await self.backend(context, .read, zone).fetchChanges(in: zone, since: token, limit: limit))
        }
        api.post("zones/{zone}/records/lookup") { request, context in
            let zone = try RequestInput.zone(context)
            let names = try await RequestInput.json(WireBody.RecordNames.self, request, limit: WireLimits.lookupBody).recordNames
            guard names.count <= WireLimits.recordNamesPerLookup else {
                throw SyncError(.limitExceeded, "\(names.count) record names in one lookup; send at most \(WireLimits.recordNamesPerLookup)")
            }
            var ids: [RecordID] = []
            for name in names { ids.append(try RecordID(zone: zone, validating: name)) }
            let records = try await self.backend(context, .read, zone).fetchRecords(ids)
            return try Responses.json(WireBody.Records(records: records.values.sorted { $0.id < $1.id }))
        }
        if !shared {
            api.get("usage") { _, context in
                try Responses.json(try await self.store.backend(for: try ZoneGate.caller(context)).usage())
            }
        }
    }

    /// The storage holding `zone`, once the caller may do `operation` there (`ZoneGate`).
    func backend(_ context: ServerRequestContext, _ operation: ZoneOperation, _ zone: ZoneID) async throws(SyncError) -> any ServerStorageBackend {
        try await gate.backend(context, operation, zone)
    }
}
