/// An attribute of an item that a metadata predicate can test (SPEC §6), with the type of
/// its values.
///
/// The raw value is the attribute's name in the predicate language (case-sensitive).
/// Callers may rely on the set of cases, their names and their types; new attributes are
/// only ever added.
public enum MetadataAttribute: String, CaseIterable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The last path component (a string).
    case name
    /// The path relative to the synced folder's root, `/`-separated, e.g. `a/b/c.pdf` (a string).
    case path
    /// The content size in bytes (a number; 0 for folders).
    case size
    /// The content change date (a date, nanosecond precision).
    case modified
    /// `Document`, `Folder` or `Symlink` (a string).
    case kind
    /// `notDownloaded`, `downloaded` (a local copy, not the latest) or `current` (a string).
    case downloadingStatus
    case isDownloading
    /// 0–100 (a number).
    case percentDownloaded
    case isUploading
    case isUploaded
    /// 0–100 (a number).
    case percentUploaded
    /// Why the last download failed, or nil (a string or nil).
    case downloadingError
    /// Why the last upload failed, or nil (a string or nil).
    case uploadingError
    case hasUnresolvedConflicts
    /// When the item was deleted (a date, or nil): items in a backend's Recently Deleted
    /// (`docs-status deleted`, `recover`, SPEC §4a); nil for every live item.
    case deletedAt
    /// The device that deleted it (a string, or nil), as `deletedAt`.
    case deletedBy
    /// The item is in a folder shared between accounts (SPEC §11; a boolean).
    case isShared
    /// This account's role in the item's share: `owner` or `participant` (a string, or nil
    /// when the item is not shared).
    case role
    /// What this account may do in the item's share: `readOnly` or `readWrite` (a string, or
    /// nil when the item is not shared).
    case permissions
    /// The account that owns the item's shared folder (a string, or nil when not shared).
    case ownerName
    /// The account that saved the version of the item the server holds (a string, or nil
    /// when no account is known: the embedded backend, an item never saved). `docsync-server`
    /// names it on every save, in every folder, shared or not.
    case lastEditorName

    /// The type of an attribute's values.
    public enum ValueType: String, Hashable, Sendable {
        case string, number, bool, date

        /// The type with an article, as error messages name it ("a number").
        public var phrase: String {
            switch self {
            case .string: "a string"
            case .number: "a number"
            case .bool: "a boolean"
            case .date: "a date"
            }
        }
    }

    /// The type of this attribute's values (besides nil, for optional attributes).
    public var type: ValueType {
        switch self {
        case .name, .path, .kind, .downloadingStatus, .downloadingError, .uploadingError, .deletedBy, .role, .permissions, .ownerName, .lastEditorName: .string
        case .size, .percentDownloaded, .percentUploaded: .number
        case .modified, .deletedAt: .date
        case .isDownloading, .isUploading, .isUploaded, .hasUnresolvedConflicts, .isShared: .bool
        }
    }

    /// True for the attributes that may have no value (nil): the two error attributes, the
    /// two of Recently Deleted, the three of a share and the last editor.
    public var isOptional: Bool { [.downloadingError, .uploadingError, .deletedAt, .deletedBy, .role, .permissions, .ownerName, .lastEditorName].contains(self) }

    /// True for number attributes whose values are fractional (the percentages): number
    /// literals compared with them are taken as `Double`. `size` is a whole number of bytes.
    public var isFractional: Bool { self == .percentDownloaded || self == .percentUploaded }

    /// What a value for this attribute looks like, for error messages.
    public var expectedValue: String {
        switch self {
        case .name, .path: "a string in quotes"
        case .kind: "a string in quotes: 'Document', 'Folder' or 'Symlink'"
        case .downloadingStatus: "a string in quotes: 'notDownloaded', 'downloaded' or 'current'"
        case .downloadingError, .uploadingError, .deletedBy, .ownerName, .lastEditorName: "a string in quotes or nil"
        case .role: "a string in quotes: 'owner' or 'participant', or nil"
        case .permissions: "a string in quotes: 'readOnly' or 'readWrite', or nil"
        case .size: "a number or size like 10MB"
        case .percentDownloaded, .percentUploaded: "a number from 0 to 100"
        case .modified: "a date like 2026-01-01 or 2026-01-01T12:30:00Z"
        case .deletedAt: "a date like 2026-01-01 or 2026-01-01T12:30:00Z, or nil"
        case .isDownloading, .isUploading, .isUploaded, .hasUnresolvedConflicts, .isShared: "true or false"
        }
    }

    public var description: String { rawValue }
}
