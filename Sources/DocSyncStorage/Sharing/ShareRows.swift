import DocSyncCore

/// The narrow persistence of shares under `AccountDirectory`, which decides every change
/// (`ShareRules`) and every access (`ZoneAccess`): the embedded store's `users.sqlite` and
/// the scale-out store's PostgreSQL keep one row per participant of each shared zone, and
/// never delete one (an ended entry says how it ended).
public protocol ShareRows: Sendable {
    /// Every entry of `share`, in any order.
    func shareEntries(of share: ShareName) async throws(SyncError) -> [ShareEntry]
    /// Every entry whose participant is `participant`, of any owner, in any order.
    func shareEntries(participant: String) async throws(SyncError) -> [ShareEntry]
    /// The entry of `participant` in `share`, or `nil`.
    func shareEntry(_ share: ShareName, participant: String) async throws(SyncError) -> ShareEntry?
    /// Stores `entry` in place of `expected` (`nil`: there is none yet) and returns true, in
    /// one transaction; returns false and stores nothing when the stored entry of that
    /// participant and share is not `expected` any more (someone changed it meanwhile).
    func replaceShareEntry(_ expected: ShareEntry?, with entry: ShareEntry) async throws(SyncError) -> Bool
}
