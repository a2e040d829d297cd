import DocSyncCore

/// Whom a request speaks for in a zone: its owner, or a participant of the share with a
/// permission (SPEC §11).
public enum ZoneRole: Hashable, Sendable {
    case owner
    case participant(SharePermission)

    /// What the role may do: the owner everything; a participant what its permission says.
    public var permission: SharePermission {
        switch self {
        case .owner: .readWrite
        case .participant(let permission): permission
        }
    }
}
