/// One change an owner makes to a folder's share (SPEC §11): invite accounts (with a
/// permission), remove participants, give participants a permission, or stop sharing with
/// everyone. `docs-status share` asks the daemon for it, and the daemon the server
/// (`POST /v1/zones/{zone}/share`), in this one form.
public struct ShareChange: Codable, Sendable, Hashable {
    public enum Action: String, Codable, Sendable, Hashable, CaseIterable {
        case invite, remove, permission, stop
    }

    public var action: Action
    /// The accounts the change names (none for `stop`).
    public var participants: [String]
    /// The permission of `invite` (read-write when absent) and of `permission`.
    public var permission: SharePermission?

    public init(action: Action, participants: [String] = [], permission: SharePermission? = nil) {
        self.action = action
        self.participants = participants
        self.permission = permission
    }
}
