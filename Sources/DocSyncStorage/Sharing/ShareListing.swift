import DocSyncCore

/// What a backend can tell of the shares offered to its account (SPEC §11): a capability of
/// docsync-server's client (`HTTPBackend`), which a shared folder's engine asks when the
/// owner's zone stops answering, to tell a share that ended (detach) from one that is only
/// unavailable (hold).
public protocol ShareListing: Sendable {
    /// This account's entry in `share`, `nil` when it has none (the share is not offered
    /// to it, or no longer exists).
    func shareEntry(_ share: ShareName) async throws(SyncError) -> ShareEntry?
}
