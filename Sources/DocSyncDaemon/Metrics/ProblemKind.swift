import DocSyncCore

/// What is wrong in a folder, in a few kinds a dashboard can count (the `kind` label of
/// `docsync_folder_problems`): the per-item problems of its status and its own error.
///
/// What a caller may rely on: the raw values never change meaning; every kind is always
/// exposed (0 when none), so the number of series is fixed; a problem no kind names is
/// `other`. Only the message decides the kind — paths and file names are never looked at.
enum ProblemKind: String, CaseIterable, Sendable {
    /// A file over `max_file_size`: kept on this device, not synced.
    case tooLarge = "too_large"
    /// A change a read-only participant made in a share (SPEC §11): kept on this device.
    case readOnlyShare = "read_only_share"
    /// A local file or folder that cannot be read, examined or named for the server.
    case unreadable
    /// FIFOs, sockets and device files: never synced.
    case unsupported
    /// A change from the server refused (its path could lead out of the folder, a record
    /// that does not open) or that cannot be applied here.
    case remoteChange = "remote_change"
    /// The watcher lost events or reached a limit (the folder was scanned again).
    case watcher
    /// An on-demand folder not mounted or waiting for its path, or files not local when a
    /// share ended.
    case mount
    /// The folder's own error: the backend refused this device's credentials.
    case notAuthenticated = "not_authenticated"
    /// The folder's own error: the account's quota or the server's disk is full.
    case storageFull = "storage_full"
    /// The folder's own error, for another reason (its status message says which).
    case folderError = "folder_error"
    /// A per-item problem of no kind above (an upload the server refused…).
    case other

    /// The kind of a per-item problem.
    static func of(_ problem: ItemProblem) -> ProblemKind {
        let message = problem.message
        if message.hasSuffix(FolderStatus.keptHereTooLarge) { return .tooLarge }
        if message == FolderStatus.notSharedReadOnly { return .readOnlyShare }
        if message.hasPrefix("cannot read this folder") || message.hasPrefix("cannot be examined") || message.hasPrefix("cannot be synced") {
            return .unreadable
        }
        if message.hasPrefix("FIFOs, sockets and device files") { return .unsupported }  // FolderScanner.specialMessage
        if message.hasPrefix("refused a change from the server") || message.hasPrefix("cannot apply the change") { return .remoteChange }
        if message.hasPrefix("watcher: ") { return .watcher }
        if message == DetachedOnDemandFolder.notLocalMessage || message.hasPrefix("not mounted: ") || message.hasPrefix("held: ")
            || message.hasPrefix("waiting: ") || message.hasPrefix("its files stay in ") {
            return .mount
        }
        return .other
    }

    /// The kind of the folder's own error, `nil` when it is in none.
    static func of(_ status: FolderStatus) -> ProblemKind? {
        guard status.state == .error else { return nil }
        guard let message = status.message else { return .folderError }
        if message == FolderStatus.notAuthenticated { return .notAuthenticated }
        if message.hasPrefix(FolderStatus.accountFullPrefix) || message.hasPrefix("backend storage full") { return .storageFull }
        return .folderError
    }

    /// How many of each kind `status` shows (every kind present, most at 0).
    static func counts(in status: FolderStatus) -> [ProblemKind: Int] {
        var counts = Dictionary(uniqueKeysWithValues: allCases.map { ($0, 0) })
        for problem in status.problems { counts[of(problem), default: 0] += 1 }
        if let own = of(status) { counts[own, default: 0] += 1 }
        return counts
    }
}
