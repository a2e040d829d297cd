import DocSyncCore

/// The state of one `FolderEngine`'s loop: a plain value the loop owns and passes along,
/// `inout`, to the work of each step. Nothing outside the loop reads or writes it; the
/// tasks a step starts get copies of what they need (the scanner's ignore rules) and give
/// their results back as values, which the step stores here.
///
/// `FolderEngine.run()` keeps one for its whole life; a caller taking turns itself (a
/// simulation) makes one with `FolderEngine.makeLoop()` and passes it to every
/// `turn(_:)` of that engine, and of that engine only.
public struct EngineLoop: Sendable {
    /// The engine this state belongs to.
    let owner: ObjectIdentifier
    /// The folder's ignore rules and how it is walked (made again when `.docsyncignore` changes).
    var scanner: FolderScanner
    /// Whether the first turn started the engine (a full scan, a fetch, leftovers removed).
    var started = false
    /// Backoff and what the backend still owes (SPEC §5).
    var retry = FolderEngine.RetryState()
    /// When the safety net's fetch last ran.
    var lastSafetyNet: ContinuousClock.Instant?
    /// Since when the loop has been busy without a break (memory is given back after long rounds).
    var busySince: ContinuousClock.Instant?
    /// The last turn went idle: the next one looks whether the safety net's fetch is due.
    var safetyNetDue = false
    /// Directories the engine created for remote items, not yet claimed by a folder record.
    var createdDirectories = Set<RelativePath>()
    /// Remote documents written ahead for the page being applied, by record name.
    var preparedFiles = [String: Executor.PreparedFile]()
    /// The root and its marker as last seen when the root was found right (`checkRoot`).
    var rootSeenRight: RootMarker.Fingerprint?
    /// True while a first fetch joins the zone (SPEC §4a, `Fetcher.fetchAndApply`).
    var joining = false
    /// Until the first full scan: it removes what downloads a crash interrupted left.
    var leftoversToRemove = true
    /// Records the server answered saves with, changed elsewhere, waiting for their plan
    /// (`applyAnsweredChanges`), by record name.
    var answeredChanges = [String: DocSyncCore.Record]()
    /// When the reconciler last saw local deletions (the brake's quiet period).
    var lastLocalDeletion: ContinuousClock.Instant?
    /// When the owner's device last asked whether its folder is shared (`refreshSharing`).
    var lastOwnerSharingCheck: ContinuousClock.Instant?
    /// Since when an encrypted folder's keys have been withheld (`standStill`); `nil` while
    /// it may work.
    var keysWithheldSince: Timestamp?

    /// Remembers directories made for remote items (`createdDirectories`).
    mutating func rememberCreated(_ made: [RelativePath]) {
        createdDirectories.formUnion(made)
    }

    /// Keeps `records` for `FolderEngine.applyAnsweredChanges` (a later answer for a record
    /// replaces an earlier one).
    mutating func noteAnswered(_ records: [DocSyncCore.Record]) {
        for record in records { answeredChanges[record.id.recordName] = record }
    }
}
