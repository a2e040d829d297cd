import DocSyncCore

/// What a backend can tell and do of this account's part in shares (SPEC §11): a
/// capability of docsync-server's client (`HTTPBackend`). A shared folder's engine asks it
/// when the owner's zone stops answering, to tell a share that ended (detach) from one that
/// is only unavailable (hold), and leaves through it.
public protocol ShareMembership: Sendable {
    /// This account's entry in `share`, `nil` when it has none (the share is not offered
    /// to it, or no longer exists).
    func shareEntry(_ share: ShareName) async throws(SyncError) -> ShareEntry?
    /// Ends this account's part in `share` on every device; returns its entry after.
    /// `zoneNotFound` when it has no open part in it.
    func leave(_ share: ShareName) async throws(SyncError) -> ShareEntry
    /// The owner's view of the share of this account's `zone`: its name and every
    /// participant's entry, of every status (none when it was never shared).
    /// `zoneNotFound` when the account has no such zone.
    func participants(of zone: ZoneID) async throws(SyncError) -> (share: ShareName, entries: [ShareEntry])
}
