import Foundation

/// One item's metadata and sync state, like `NSMetadataItem` for an iCloud item (SPEC §6).
/// What `docs-status ls`, `query` and `conflicts` show, one per item.
public struct ItemStatus: Codable, Sendable, Hashable {
    /// The folder's id (its zone name).
    public var folder: String
    /// Path relative to the folder, `/`-separated.
    public var path: String
    /// The last component of `path`.
    public var name: String
    /// `Document`, `Folder` or `Symlink`.
    public var kind: String
    public var size: Int64
    /// The content's modification time.
    public var modified: Date
    /// `notDownloaded` (a placeholder), `downloaded` (a local copy, not the latest) or `current`.
    public var downloadingStatus: String
    public var isDownloading: Bool
    /// 0–100, advancing chunk by chunk while `isDownloading`.
    public var percentDownloaded: Double
    public var isUploading: Bool
    /// The server holds this version.
    public var isUploaded: Bool
    /// 0–100, advancing chunk by chunk while `isUploading`.
    public var percentUploaded: Double
    public var downloadingError: String?
    public var uploadingError: String?
    /// A conflict copy of this item sits beside it.
    public var hasUnresolvedConflicts: Bool
    /// The item is in a folder shared between accounts (SPEC §11); the three keys after it
    /// are absent when it is not.
    public var isShared: Bool
    /// This account's role in the share: `owner` or `participant`.
    public var role: SharedFolderFacts.Role?
    /// What this account may do in the share: `readOnly` or `readWrite`.
    public var permissions: SharePermission?
    /// The account that owns the shared folder.
    public var ownerName: String?
    /// The account that saved the version the server holds, where the server names it
    /// (`docsync-server` does, in every folder); absent otherwise.
    public var lastEditorName: String?

    public init(folder: String, path: String, name: String, kind: String, size: Int64, modified: Date,
                downloadingStatus: String, isDownloading: Bool, percentDownloaded: Double, isUploading: Bool,
                isUploaded: Bool, percentUploaded: Double, downloadingError: String?, uploadingError: String?,
                hasUnresolvedConflicts: Bool, sharing: SharedFolderFacts? = nil, lastEditorName: String? = nil) {
        self.lastEditorName = lastEditorName
        self.isShared = sharing != nil
        self.role = sharing?.role
        self.permissions = sharing?.permission
        self.ownerName = sharing?.ownerName
        self.folder = folder
        self.path = path
        self.name = name
        self.kind = kind
        self.size = size
        self.modified = modified
        self.downloadingStatus = downloadingStatus
        self.isDownloading = isDownloading
        self.percentDownloaded = percentDownloaded
        self.isUploading = isUploading
        self.isUploaded = isUploaded
        self.percentUploaded = percentUploaded
        self.downloadingError = downloadingError
        self.uploadingError = uploadingError
        self.hasUnresolvedConflicts = hasUnresolvedConflicts
    }
}

/// What changed in a live query's result (`docs-status query --watch`), like
/// NSMetadataQuery's gathering and update notifications. The first one of a watch holds
/// the initial result in `added` with `initial` true.
public struct ItemChanges: Codable, Sendable, Hashable {
    public var initial: Bool
    public var added: [ItemStatus]
    public var changed: [ItemStatus]
    public var removed: [ItemStatus]

    public init(initial: Bool, added: [ItemStatus], changed: [ItemStatus], removed: [ItemStatus]) {
        self.initial = initial
        self.added = added
        self.changed = changed
        self.removed = removed
    }
}

/// A problem of one item or folder that needs a person (`docs-status errors`).
public struct ProblemEntry: Codable, Sendable, Hashable {
    public var folder: String
    /// Path relative to the folder; "." for the folder itself.
    public var path: String
    public var message: String

    public init(folder: String, path: String, message: String) {
        self.folder = folder
        self.path = path
        self.message = message
    }
}

/// What an action (`download`, `evict`, `restore`) did to one item.
public struct ActionOutcome: Codable, Sendable, Hashable {
    public var folder: String
    public var path: String
    /// True when the action was done (or nothing needed doing).
    public var done: Bool
    /// Why it was refused or failed, or a note on what was done.
    public var message: String?

    public init(folder: String, path: String, done: Bool, message: String? = nil) {
        self.folder = folder
        self.path = path
        self.done = done
        self.message = message
    }
}

/// One version kept in the version store (`docs-status versions`).
public struct VersionEntry: Codable, Sendable, Hashable {
    /// Identifies the version for `restore --version`.
    public var id: Int64
    public var folder: String
    /// Where the item was when this version was kept.
    public var path: String
    public var savedAt: Date
    /// `conflict`, `overwritten` or `deleted`.
    public var reason: String
    /// The device whose content this version is.
    public var device: String
    public var size: Int64

    public init(id: Int64, folder: String, path: String, savedAt: Date, reason: String, device: String, size: Int64) {
        self.id = id
        self.folder = folder
        self.path = path
        self.savedAt = savedAt
        self.reason = reason
        self.device = device
        self.size = size
    }
}
