import DocSyncCore
import DocSyncStorage

/// A record in Recently Deleted seen as a metadata item: what `--where` predicates test
/// (`deletedAt`, `deletedBy` and the item's own attributes; an item that is not on this
/// device is `notDownloaded`, and was uploaded).
struct DeletedItem: MetadataValues {
    var deleted: DeletedRecord
    /// The folder's place in a share (`nil`: shared with nobody).
    var sharing: SharedFolderFacts?

    func value(of attribute: MetadataAttribute) -> MetadataValue {
        let record = deleted.record
        return switch attribute {
        case .name: .string(record.path.name)
        case .path: .string(record.path.string)
        case .size: .integer(record.size)
        case .modified: .date(record.modified)
        case .kind: .string(record.type.rawValue)
        case .downloadingStatus: .string(Placeholder.notDownloaded)
        case .isDownloading, .isUploading, .hasUnresolvedConflicts: .bool(false)
        case .percentDownloaded: .double(0)
        case .isUploaded: .bool(true)
        case .percentUploaded: .double(100)
        case .downloadingError, .uploadingError: .null
        case .deletedAt: .date(deleted.deletedAt)
        case .deletedBy: .string(deleted.deletedBy)
        case .isShared, .role, .permissions, .ownerName: SharedFolderFacts.value(of: attribute, sharing) ?? .null
        case .lastEditorName: record.lastEditorName.map(MetadataValue.string) ?? .null
        }
    }
}
