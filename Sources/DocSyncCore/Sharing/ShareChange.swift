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
    /// With `invite` of one account to an encrypted folder (SPEC §13): the code the person
    /// compared with the one `docs-status shares` shows on that account's side. The daemon
    /// checks it and never sends it to the server.
    public var fingerprint: String?

    public init(action: Action, participants: [String] = [], permission: SharePermission? = nil, fingerprint: String? = nil) {
        self.action = action
        self.participants = participants
        self.permission = permission
        self.fingerprint = fingerprint
    }
}
