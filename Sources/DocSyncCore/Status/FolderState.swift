/// What a synced folder is doing, as `docs-status` shows it.
public enum FolderState: String, Codable, Sendable, CaseIterable {
    /// Nothing pending in either direction.
    case idle
    /// Comparing the folder with the index (start-up or after lost events).
    case scanning
    /// Sending or applying changes.
    case syncing
    /// The backend cannot be reached; work stays queued and is retried.
    case offline
    /// Stopped for a reason a person must act on (not authenticated, quota exceeded).
    case error
    /// The folder looks missing or replaced (SPEC §4a): nothing is sent or written until it
    /// is back or a person chooses (`docs-status deletions`). `FolderStatus.held` says why.
    case held
    /// Everything syncs but a mass deletion, held by the brake until a person chooses.
    case deletionsHeld = "deletions held"
    /// Paused by a person (`docs-status pause`, SPEC §15): nothing is sent or fetched until
    /// `resume` or the pause's end; local changes are noted and sent then. Reads of
    /// on-demand content a program asks for still fetch. `wait` exits 5.
    case paused
    /// A shared folder whose share ended (removed, left, declined, stopped: SPEC §11): its
    /// files stay on this device as they are, no longer synced. Nothing is pending.
    case detached = "no longer shared"
    /// An encrypted folder on a device not trusted yet (SPEC §13): nothing is sent, applied
    /// or deleted until a trusted device approves it (`docs-status devices approve`) or the
    /// recovery key is entered. `FolderStatus.held` says so too (`wait` exits 5).
    case awaitingApproval = "awaiting approval"
    /// An encrypted folder whose keys this device does not hold (SPEC §13): nothing is sent,
    /// applied or deleted; the message says why and what to do (`wait` exits 5).
    case cannotDecrypt = "cannot be decrypted"
}
