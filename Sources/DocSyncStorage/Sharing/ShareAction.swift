import DocSyncCore

/// A change to one participant's entry in a share (SPEC §11): the owner's (invite,
/// remove, change the permission, stop sharing) or the participant's own answer (accept,
/// decline, leave).
public enum ShareAction: Hashable, Sendable {
    case invite(SharePermission)
    case remove
    case setPermission(SharePermission)
    case stop
    case accept
    case decline
    case leave

    /// Whether the owner makes this change (the others are the participant's).
    public var isOwners: Bool {
        switch self {
        case .invite, .remove, .setPermission, .stop: true
        case .accept, .decline, .leave: false
        }
    }
}
