/// What a device knows of its folder's place in a share (SPEC §11): iCloud's shared-item
/// keys (`isShared`, `role`, `permissions`, `ownerName`) for status and predicates, what
/// the engine follows (a read-only participant's device never uploads), and the account
/// conflict copies name beside the device.
///
/// Learned from the server's share list: a participant's own entry, or for the owner
/// whether anyone has an open part in the share. A folder of one account that is shared
/// with nobody has none (`isShared` false).
public struct SharedFolderFacts: Codable, Sendable, Hashable {
    /// Whose folder it is, from this account's side.
    public enum Role: String, Codable, Sendable, Hashable, CaseIterable {
        case owner
        case participant
    }

    public var role: Role
    /// What this account may do in the folder: always `readWrite` for the owner.
    public var permission: SharePermission
    /// The account that owns the folder's zone.
    public var ownerName: String
    /// The account this device signs in as (the owner's, or the participant's).
    public var accountName: String

    public init(role: Role, permission: SharePermission, ownerName: String, accountName: String) {
        self.role = role
        self.permission = permission
        self.ownerName = ownerName
        self.accountName = accountName
    }

    /// A participant's facts from its own entry in the share.
    public init(participating entry: ShareEntry) {
        self.init(role: .participant, permission: entry.permission, ownerName: entry.share.owner, accountName: entry.participant)
    }

    /// The owner's facts for a folder it shares.
    public static func owner(_ account: String) -> SharedFolderFacts {
        SharedFolderFacts(role: .owner, permission: .readWrite, ownerName: account, accountName: account)
    }

    /// True for a participant that may only read: its changes stay on its device.
    public var isReadOnly: Bool { role == .participant && permission == .readOnly }

    /// The value of a share's attribute (`isShared`, `role`, `permissions`, `ownerName`) for
    /// an item of a folder with these facts (`nil`: shared with nobody); `nil` for any
    /// other attribute.
    public static func value(of attribute: MetadataAttribute, _ facts: SharedFolderFacts?) -> MetadataValue? {
        switch attribute {
        case .isShared: .bool(facts != nil)
        case .role: facts.map { .string($0.role.rawValue) } ?? .null
        case .permissions: facts.map { .string($0.permission.rawValue) } ?? .null
        case .ownerName: facts.map { .string($0.ownerName) } ?? .null
        default: nil
        }
    }

    /// The name conflict copies carry in a shared folder: the account, then the device
    /// (`report (conflict bob laptop 2026-…).txt`), since two people may each have a laptop.
    /// The device alone while the account is not known yet (a refused save before the
    /// share list answered).
    public func conflictLabel(device: String) -> String { accountName.isEmpty ? device : "\(accountName) \(device)" }
}
