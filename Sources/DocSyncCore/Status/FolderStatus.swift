import Foundation

/// One synced folder's state, counts and problems at one moment.
public struct FolderStatus: Codable, Sendable, Hashable {
    /// The folder id (the zone name).
    public var id: String
    /// The folder's absolute path on this machine.
    public var path: String
    public var state: FolderState
    /// Why the folder is offline or in error, for a person (`FolderStatus.notAuthenticated`…).
    public var message: String?

    /// The message of a folder whose backend refused this device's credentials.
    public static let notAuthenticated =
        "account: not authenticated; the backend refused this device's token: make one with 'docsync-server user token NAME' on the server, write it to the token_file, and restart docsyncd"
    /// The message of a folder whose zone was moved into an encrypted zone (`zoneMoved`,
    /// SPEC §13) while the daemon starts it there.
    public static let zoneMoved =
        "moved into an encrypted zone: starting again there (files already here are kept and matched, not downloaded again)"
    /// The message of a shared folder whose owner gave this account read-only access (SPEC §11).
    public static let readOnlyShare =
        "shared read-only: this account may not change the shared folder; changes stay on this device and are sent if the owner makes it read-write"
    /// The per-item problem of a change a read-only participant made (a new file, or the
    /// conflict copy its edit became): it stays on this device, not pending, and is sent if
    /// the owner makes the share read-write (SPEC §11).
    public static let notSharedReadOnly = "not shared: read-only"
    /// How the per-item problem of a file over `max_file_size` ends: it stays here.
    public static let keptHereTooLarge = "kept on this device, not synced"
    /// The message of a shared folder held because its zone does not answer (SPEC §11).
    public static func shareUnavailable(_ share: ShareName, items: Int) -> String {
        "the share \(share) does not answer (stopped, or gone from the server?): nothing is sent or written and nothing is deleted, "
            + "\(items) item\(items == 1 ? "" : "s") kept on this device; it resumes by itself when the share answers again"
    }
    /// The message of a shared folder detached because its share ended (SPEC §11).
    public static func shareEnded(_ share: ShareName, _ status: ShareStatus) -> String {
        let how = switch status {
        case .removed: "\(share.owner) removed this account from it"
        case .left: "this account left it"
        case .declined: "this account declined it"
        case .stopped: "\(share.owner) stopped sharing it"
        case .invited, .accepted: "it ended"
        }
        return "no longer shared: \(share) ended (\(how)); the files stay on this device as they are, no longer synced"
    }
    /// The message of a folder whose backend has no room left: the account's quota (with
    /// what it uses and may use), or the backend's own disk.
    public static func storageFull(_ quota: AccountQuota?) -> String {
        guard let quota else {
            return "backend storage full: the server's disk has no room left; uploads paused, everything is kept on this device, and they resume by themselves when it has"
        }
        return "\(accountFullPrefix) (\(ByteCountFormatter.string(fromByteCount: quota.usedBytes, countStyle: .file)) / "
            + "\(ByteCountFormatter.string(fromByteCount: quota.quotaBytes, countStyle: .file))); uploads paused, everything is kept on this device; "
            + "they resume by themselves when space frees (docs-status deleted --purge, deletions past their retention, a larger quota)"
    }

    /// How `storageFull` starts for an account over its quota.
    public static let accountFullPrefix = "account: storage full"

    /// Items in the index (files, folders, symlinks).
    public var items: Int
    public var pendingUploads: Int
    public var pendingUploadBytes: Int64
    public var pendingDownloads: Int
    public var pendingDownloadBytes: Int64
    /// Items with an unresolved conflict copy beside them.
    public var conflicts: Int
    /// Per-file problems: unreadable files, files over the size limit, names that are not UTF-8…
    public var problems: [ItemProblem]
    /// When the folder last finished a sync with nothing left pending.
    public var lastSync: Date?
    /// What the folder holds back for a person to decide (SPEC §4a), if anything.
    public var held: HeldDeletions?
    /// The folder's place in a share (SPEC §11): absent when it is shared with nobody.
    public var sharing: SharedFolderFacts?
    /// A person's long action running now (`recover`, `deletions --restore`), absent when none.
    public var activity: FolderActivity?

    public init(
        id: String, path: String, state: FolderState, message: String? = nil, items: Int = 0,
        pendingUploads: Int = 0, pendingUploadBytes: Int64 = 0, pendingDownloads: Int = 0,
        pendingDownloadBytes: Int64 = 0, conflicts: Int = 0, problems: [ItemProblem] = [], lastSync: Date? = nil,
        held: HeldDeletions? = nil, sharing: SharedFolderFacts? = nil
    ) {
        self.held = held
        self.sharing = sharing
        self.id = id
        self.path = path
        self.state = state
        self.message = message
        self.items = items
        self.pendingUploads = pendingUploads
        self.pendingUploadBytes = pendingUploadBytes
        self.pendingDownloads = pendingDownloads
        self.pendingDownloadBytes = pendingDownloadBytes
        self.conflicts = conflicts
        self.problems = problems
        self.lastSync = lastSync
    }

    /// How the folder is shared, for a person: `shared by alice, read-only` on a
    /// participant's device, `shared by this account` on the owner's; `nil` when not shared.
    public var sharingNote: String? {
        guard let sharing else { return nil }
        switch sharing.role {
        case .owner: return "shared by this account (\(sharing.ownerName)) with other accounts"
        case .participant: return "shared by \(sharing.ownerName) with \(sharing.accountName), \(sharing.permission.argument)"
        }
    }

    /// True when the folder is idle with nothing pending in either direction.
    public var isSettled: Bool { state == .idle && pendingUploads == 0 && pendingDownloads == 0 }
}

/// A problem with one item that a person may need to act on.
public struct ItemProblem: Codable, Sendable, Hashable {
    /// Path relative to the folder (escaped when the name is not valid UTF-8).
    public var path: String
    /// What is wrong and what to do, e.g. "file is 60 MB, over max_file_size (50 MB): not synced".
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// True for an item kept on this device by design, not pending: a read-only
    /// participant's change (SPEC §11) or a file over `max_file_size`. `wait` settles with
    /// them and names them.
    public var isKeptHereByDesign: Bool {
        message == FolderStatus.notSharedReadOnly || message.hasSuffix(FolderStatus.keptHereTooLarge)
    }
}
