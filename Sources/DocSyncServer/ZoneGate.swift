import DocSyncCore
import DocSyncStorage
import Hummingbird

/// Which storage a request reaches, and whether it may (SPEC §11): routes under `/v1` reach
/// the caller's own zones; the same routes under `/v1/shared/{owner}` reach the zones
/// `owner` shares with the caller, once `ZoneAccess` allows the operation. A caller that
/// may not see a zone gets the answer of a zone that does not exist, and the owner's
/// storage is not even opened for it.
struct ZoneGate: Sendable {
    let store: any ServerStore

    /// The route parameter naming a share's owner.
    static let ownerParameter = "owner"

    /// The authenticated caller.
    static func caller(_ context: ServerRequestContext) throws(SyncError) -> String {
        guard let user = context.user else { throw SyncError(.notAuthenticated, "the request was not authenticated") }
        return user
    }

    /// The account whose storage the request reaches: the owner the route names, or the caller.
    static func owner(_ context: ServerRequestContext) throws(SyncError) -> String {
        if let owner = try RequestInput.owner(context) { return owner }
        return try caller(context)
    }

    /// The storage holding `zone`, once the caller may do `operation` there.
    func backend(_ context: ServerRequestContext, _ operation: ZoneOperation, _ zone: ZoneID) async throws(SyncError) -> any ServerStorageBackend {
        let caller = try Self.caller(context), owner = try Self.owner(context)
        if owner != caller { _ = try await store.access(operation, caller: caller, share: ShareName(owner: owner, zone: zone)) }
        return try await store.backend(for: owner)
    }

    /// The storage of the owner's chunks, once the caller may do `operation` in at least
    /// one zone of the owner (a read-write participant uploads, any participant downloads):
    /// `permissionDenied` when it takes part only where it may not, and otherwise an answer
    /// that says nothing of whether the owner exists.
    func chunkBackend(_ context: ServerRequestContext, _ operation: ZoneOperation) async throws(SyncError) -> any ServerStorageBackend {
        let caller = try Self.caller(context), owner = try Self.owner(context)
        if owner != caller {
            var allowed = false, denied = false
            for entry in try await store.shares(of: caller) where entry.share.owner == owner {
                switch ZoneAccess.decide(operation, caller: caller, share: entry.share, entry: entry) {
                case .allowed: allowed = true
                case .denied: denied = true
                case .hidden: break
                }
            }
            guard allowed else {
                guard denied else { throw Self.nothingShared(by: owner) }
                throw SyncError(.permissionDenied, "cannot \(operation.phrase) the content of \(owner)'s folders: \(owner) shares them with you read-only; ask \(owner) for read-write")
            }
        }
        return try await store.backend(for: owner)
    }

    /// The zones the caller may read, sorted: every zone of its own, or the accepted shares
    /// of the owner the route names that still exist.
    func zones(_ context: ServerRequestContext) async throws(SyncError) -> [ZoneID] {
        let owner = try Self.owner(context)
        return try await zones(of: owner, accepted: try await acceptedZones(caller: try Self.caller(context), owner: owner))
    }

    /// `owner`'s zones among `accepted` (`acceptedZones`; `nil`: every one).
    func zones(of owner: String, accepted: Set<ZoneID>?) async throws(SyncError) -> [ZoneID] {
        guard let accepted else { return try await store.backend(for: owner).listZones() }
        guard !accepted.isEmpty else { return [] }
        return try await store.backend(for: owner).listZones().filter(accepted.contains)
    }

    /// The zones of `owner` that `caller` accepted (whether they still exist or not), or
    /// `nil` when it is the owner, whose every zone is its own.
    func acceptedZones(caller: String, owner: String) async throws(SyncError) -> Set<ZoneID>? {
        guard owner != caller else { return nil }
        return Set(try await store.shares(of: caller).filter { $0.share.owner == owner && $0.status == .accepted }.map(\.share.zone))
    }

    /// `zoneNotFound`: the caller has no accepted share of `owner`'s (or `owner` does not exist).
    static func nothingShared(by owner: String) -> SyncError {
        SyncError(.zoneNotFound, "\(owner) shares no folder with you that allows this; `docs-status shares` lists what is shared with you")
    }
}
