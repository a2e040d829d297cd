import DocSyncCore
import DocSyncStorage

/// Sharing (SPEC §11): the owner's view and changes of a zone's share, and a participant's
/// list and answers: always the token's account's, whatever `owner` the backend reaches.
extension HTTPBackend: ShareMembership {
    /// Every entry of the share of the caller's `zone`; `zoneNotFound` when it has no such zone.
    public func share(of zone: ZoneID) async throws(SyncError) -> WireBody.Share {
        try await fetchJSON(WireRoute.share(zone), as: WireBody.Share.self, context: "read the share of \(zone)")
    }

    /// Applies the owner's `change` to the share of `zone`; returns the share after it.
    public func changeShare(of zone: ZoneID, _ change: WireBody.ShareChange) async throws(SyncError) -> WireBody.Share {
        try await sendJSON(.POST, WireRoute.share(zone), change, as: WireBody.Share.self, context: "change the share of \(zone)")
    }

    /// Leaves `share` (`ShareMembership`).
    public func leave(_ share: ShareName) async throws(SyncError) -> ShareEntry {
        try await answerShare(share, .leave)
    }

    /// The share of this account's `zone` (`ShareMembership`).
    public func participants(of zone: ZoneID) async throws(SyncError) -> (share: ShareName, entries: [ShareEntry]) {
        let found = try await share(of: zone)
        return (found.share, found.participants)
    }

    /// This account's entry in `share` (`ShareMembership`).
    public func shareEntry(_ share: ShareName) async throws(SyncError) -> ShareEntry? {
        try await shares().first { $0.share == share }
    }

    /// Every share offered to this account, of every status.
    public func shares() async throws(SyncError) -> [ShareEntry] {
        try await fetchJSON(WireRoute.shares, as: WireBody.Shares.self, context: "list the shares").shares
    }

    /// This account's answer to `share` (accept, decline or leave); returns its entry after it.
    public func answerShare(_ share: ShareName, _ answer: WireRoute.ShareAnswer) async throws(SyncError) -> ShareEntry {
        let context = "\(answer.rawValue) the share \(share)"
        return try Self.decode(ShareEntry.self, from: try await send(.POST, WireRoute.answer(share, answer), context: context).body, context: context)
    }
}
