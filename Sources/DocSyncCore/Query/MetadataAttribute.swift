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
        case .name, .path, .kind, .downloadingStatus, .downloadingError, .uploadingError, .deletedBy: .string
        case .size, .percentDownloaded, .percentUploaded: .number
        case .modified, .deletedAt: .date
        case .isDownloading, .isUploading, .isUploaded, .hasUnresolvedConflicts: .bool
        }
    }

    /// True for the attributes that may have no value (nil): the two error attributes and
    /// the two of Recently Deleted.
    public var isOptional: Bool { [.downloadingError, .uploadingError, .deletedAt, .deletedBy].contains(self) }

    /// True for number attributes whose values are fractional (the percentages): number
    /// literals compared with them are taken as `Double`. `size` is a whole number of bytes.
    public var isFractional: Bool { self == .percentDownloaded || self == .percentUploaded }

    /// What a value for this attribute looks like, for error messages.
    public var expectedValue: String {
        switch self {
        case .name, .path: "a string in quotes"
        case .kind: "a string in quotes: 'Document', 'Folder' or 'Symlink'"
        case .downloadingStatus: "a string in quotes: 'notDownloaded', 'downloaded' or 'current'"
        case .downloadingError, .uploadingError, .deletedBy: "a string in quotes or nil"
        case .size: "a number or size like 10MB"
        case .percentDownloaded, .percentUploaded: "a number from 0 to 100"
        case .modified: "a date like 2026-01-01 or 2026-01-01T12:30:00Z"
        case .deletedAt: "a date like 2026-01-01 or 2026-01-01T12:30:00Z, or nil"
        case .isDownloading, .isUploading, .isUploaded, .hasUnresolvedConflicts: "true or false"
        }
    }

    public var description: String { rawValue }
}
