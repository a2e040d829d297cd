import DocSyncCore

/// The state of a `FolderEngine` that only its loop touches (and the tasks it starts and
/// awaits within a step): nothing outside the engine reads or writes it.
struct LoopOwned: Sendable {
    /// The folder's ignore rules and how it is walked (made again when `.docsyncignore` changes).
    var scanner: FolderScanner
    /// What the loop keeps from one turn to the next (only `turn()` touches it).
    var loop = FolderEngine.LoopState()
    /// Directories the engine created for remote items, not yet claimed by a folder record.
    var createdDirectories = Set<RelativePath>()
    /// Remote documents written ahead for the page being applied, by record name.
    var preparedFiles = [String: FolderEngine.PreparedFile]()
    /// The root and its marker as last seen when the root was found right (`checkRoot`).
    var rootSeenRight: RootMarker.Fingerprint?
    /// True while a first fetch joins the zone (SPEC §4a, `fetchAndApply`).
    var joining = false
    /// Until the first full scan: it removes what downloads a crash interrupted left.
    var leftoversToRemove = true
    /// Records the server answered saves with, changed elsewhere, waiting for their plan
    /// (`applyAnsweredChanges`), by record name.
    var answeredChanges = [String: DocSyncCore.Record]()
    /// When the reconciler last saw local deletions (the brake's quiet period).
    var lastLocalDeletion: ContinuousClock.Instant?
}

extension FolderEngine {
    /// Remembers directories made for remote items (`LoopOwned.createdDirectories`).
    func rememberCreated(_ made: [RelativePath]) {
        guard !made.isEmpty else { return }
        owned.withLock { $0.createdDirectories.formUnion(made) }
    }
}
