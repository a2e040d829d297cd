import DocSyncCore
import DocSyncStorage

/// The JSON bodies of sharing (SPEC §11; see `WireRoute.share`, `WireRoute.shares`).
extension WireBody {
    /// `GET`/`POST /v1/zones/{zone}/share` answer: the share and every entry it has had,
    /// sorted by participant (ended ones say how they ended).
    public struct Share: Codable, Sendable, Hashable {
        public var share: ShareName
        public var participants: [ShareEntry]
        public init(share: ShareName, participants: [ShareEntry]) {
            self.share = share
            self.participants = participants
        }
    }

    /// `POST /v1/zones/{zone}/share` request: one change by the owner.
    public typealias ShareChange = DocSyncCore.ShareChange

    /// `GET /v1/shares` answer: every share offered to the caller, of every status, sorted.
    public struct Shares: Codable, Sendable, Hashable {
        public var shares: [ShareEntry]
        public init(shares: [ShareEntry]) { self.shares = shares }
    }
}

extension WireRoute.ShareAnswer {
    /// The participant's action this answer is.
    public var shareAction: ShareAction {
        switch self {
        case .accept: .accept
        case .decline: .decline
        case .leave: .leave
        }
    }
}

extension ShareChange {
    /// The action for `AccountDirectory.changeShare`; `invalidArguments` for a change that
    /// does not hold together (a permission change without one, a stop naming people).
    public func shareAction() throws(SyncError) -> ShareAction {
        switch action {
        case .invite:
            guard !participants.isEmpty else { throw SyncError(.invalidArguments, "an invitation names at least one account") }
            return .invite(permission ?? .readWrite)
        case .remove:
            guard !participants.isEmpty else { throw SyncError(.invalidArguments, "a removal names at least one participant") }
            guard permission == nil else { throw SyncError(.invalidArguments, "a removal takes no permission") }
            return .remove
        case .permission:
            guard !participants.isEmpty, let permission else {
                throw SyncError(.invalidArguments, "a permission change names participants and the permission (readOnly or readWrite)")
            }
            return .setPermission(permission)
        case .stop:
            guard participants.isEmpty, permission == nil else {
                throw SyncError(.invalidArguments, "stopping a share names no participants and no permission: it ends for everyone")
            }
            return .stop
        }
    }
}
