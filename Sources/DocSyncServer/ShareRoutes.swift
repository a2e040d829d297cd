import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import Hummingbird

/// Sharing (SPEC §11; see `WireRoute.share`, `WireRoute.shares`): the owner lists and
/// changes a zone's share, a participant lists what is offered to it and answers. Every
/// change is announced on the zone, so the devices of the owner and of every participant
/// hear of it by push and look again.
struct ShareRoutes: Sendable {
    let store: any ServerStore

    func register(on api: RouterGroup<ServerRequestContext>) {
        api.get("zones/{zone}/share") { _, context in
            let share = try await ownedShare(context)
            return try Responses.json(WireBody.Share(share: share, participants: try await store.shareEntries(of: share)))
        }
        api.post("zones/{zone}/share") { request, context in
            let change = try await RequestInput.json(WireBody.ShareChange.self, request, limit: WireLimits.shareBody)
            let share = try await ownedShare(context, invitesNeedTheZone: change.action == .invite)
            guard change.participants.count <= WireLimits.participantsPerChange else {
                throw SyncError(.limitExceeded, "\(change.participants.count) accounts in one change; name at most \(WireLimits.participantsPerChange)")
            }
            let entries = try await store.changeShare(share, try change.shareAction(), participants: change.participants)
            await announce(share, context)
            return try Responses.json(WireBody.Share(share: share, participants: entries))
        }
        api.get("shares") { _, context in
            try Responses.json(WireBody.Shares(shares: try await store.shares(of: try ZoneGate.caller(context))))
        }
        for answer in WireRoute.ShareAnswer.allCases {
            api.post("shares/{owner}/{zone}/\(answer.rawValue)") { _, context in
                let share = ShareName(owner: try RequestInput.owner(context) ?? "", zone: try RequestInput.zone(context))
                let entry = try await store.answerShare(share, participant: try ZoneGate.caller(context), answer.shareAction)
                await announce(share, context)
                return try Responses.json(entry)
            }
        }
    }

    /// The share of the caller's zone the route names; `zoneNotFound` when the caller has
    /// no such zone — unless it is gone and its share still has entries (the owner can then
    /// list them and end them; `invitesNeedTheZone`: not invite anyone into it).
    private func ownedShare(_ context: ServerRequestContext, invitesNeedTheZone inviting: Bool = false) async throws(SyncError) -> ShareName {
        let owner = try ZoneGate.caller(context), zone = try RequestInput.zone(context)
        let share = ShareName(owner: owner, zone: zone)
        guard try await store.backend(for: owner).listZones().contains(zone) else {
            if !inviting, try await !store.shareEntries(of: share).isEmpty { return share }
            throw SyncError.zoneNotFound(zone)
        }
        return share
    }

    /// Tells the devices listening to the zone that its share changed (they fetch, and learn
    /// their permission or their removal). A failure only delays that until their next fetch.
    private func announce(_ share: ShareName, _ context: ServerRequestContext) async {
        do {
            try await store.backend(for: share.owner).announce(share.zone)
        } catch {
            context.logger.warning("cannot announce a share's change", metadata: ["share": "\(share)", "error": "\(error)"])
        }
    }
}
