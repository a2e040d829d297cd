import DocSyncCore

/// What a request does to a zone, or to the chunks of the zone's owner, as `ZoneAccess`
/// decides who may do it (SPEC §11).
public enum ZoneOperation: String, Hashable, Sendable, CaseIterable {
    /// List the zone, fetch its changes, look records up, download chunks, list Recently Deleted.
    case read
    /// Save or delete records (a modify), and upload the chunks they name.
    case save
    /// Recover records from Recently Deleted.
    case recover
    /// Empty Recently Deleted early.
    case purge
    /// Create, delete or move the zone itself.
    case manageZone
    /// Invite, remove, change a permission, stop sharing.
    case manageShare

    /// How the operation reads in an error: "save", "purge Recently Deleted", ….
    public var phrase: String {
        switch self {
        case .read: "read"
        case .save: "save or delete"
        case .recover: "recover deleted items"
        case .purge: "purge Recently Deleted"
        case .manageZone: "create, delete or move the folder"
        case .manageShare: "change who shares the folder"
        }
    }
}
