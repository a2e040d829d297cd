import DocSyncCore

/// An item's path and its SPEC §6 attributes, as a metadata query returns them: what
/// `docs-status query` shows, without the rest of the index row.
public struct MetadataItem: Hashable, Sendable, MetadataValues {
    public var recordName: String
    public var path: RelativePath
    public var kind: RecordType
    public var size: Int64
    public var modified: Timestamp
    public var status: ItemTransferStatus
    /// The folder's place in a share (`nil`: shared with nobody): the share's attributes.
    public var sharing: SharedFolderFacts?
    /// The account that saved the version the server holds (`Record.lastEditorName`).
    public var lastEditorName: String?

    public init(recordName: String, path: RelativePath, kind: RecordType, size: Int64, modified: Timestamp,
                status: ItemTransferStatus, sharing: SharedFolderFacts? = nil, lastEditorName: String? = nil) {
        self.sharing = sharing
        self.lastEditorName = lastEditorName
        self.recordName = recordName
        self.path = path
        self.kind = kind
        self.size = size
        self.modified = modified
        self.status = status
    }

    /// The attributes of an index row.
    public init(_ item: IndexItem, sharing: SharedFolderFacts? = nil) {
        self.init(recordName: item.recordName, path: item.path, kind: item.kind, size: item.size, modified: item.modified,
                  status: item.status, sharing: sharing, lastEditorName: item.acked?.lastEditorName)
    }

    public func value(of attribute: MetadataAttribute) -> MetadataValue {
        switch attribute {
        case .name: .string(path.name)
        case .path: .string(path.string)
        case .size: .integer(size)
        case .modified: .date(modified)
        case .kind: .string(kind.rawValue)
        case .downloadingStatus: .string(status.downloadingStatus)
        case .isDownloading: .bool(status.isDownloading)
        case .percentDownloaded: .double(status.percentDownloaded)
        case .isUploading: .bool(status.isUploading)
        case .isUploaded: .bool(status.isUploaded)
        case .percentUploaded: .double(status.percentUploaded)
        case .downloadingError: status.downloadingError.map(MetadataValue.string) ?? .null
        case .uploadingError: status.uploadingError.map(MetadataValue.string) ?? .null
        case .hasUnresolvedConflicts: .bool(status.hasUnresolvedConflicts)
        case .deletedAt, .deletedBy: .null  // a live item
        case .isShared, .role, .permissions, .ownerName: SharedFolderFacts.value(of: attribute, sharing) ?? .null
        case .lastEditorName: lastEditorName.map(MetadataValue.string) ?? .null
        }
    }

    /// Every attribute's value, for display.
    public var attributes: MetadataSnapshot { MetadataSnapshot(of: self) }
}

extension IndexItem: MetadataValues {
    /// The row's SPEC §6 attributes, the same values the index's columns hold: what
    /// `MetadataPredicate.evaluate` tests and `LocalIndex.items(matching:)` selects by.
    public func value(of attribute: MetadataAttribute) -> MetadataValue {
        MetadataItem(self).value(of: attribute)
    }
}
