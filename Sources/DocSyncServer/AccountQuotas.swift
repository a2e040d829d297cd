import DocSyncCore
import DocSyncStorage

/// The per-user quotas of docsync-server (`docsync-server user quota`), applied to what a
/// request would store. What counts is every byte of chunks the user's store keeps — for
/// live records, Recently Deleted and replaced versions, and not yet collected — as its
/// counters have it. A user over quota gets `quotaExceeded` (507) carrying the usage and the
/// quota (`SyncError.accountFull`); a full disk stays `quotaExceeded` without `quota`.
struct AccountQuotas: Sendable {
    let store: any ServerStore

    /// The most bytes `user`'s chunks may take, read afresh (`nil`: no limit).
    func limit(for user: String) async throws(SyncError) -> Int64? {
        try await store.quota(of: user)
    }

    /// Refuses a request that saves records while `user` stores more than the quota (one
    /// lowered below what is stored). Deletions, recoveries and purges are never refused:
    /// they add nothing, and a purge is how space comes back.
    func refuseSavesOverQuota(of user: String, in backend: any ServerStorageBackend) async throws(SyncError) {
        guard let quota = try await limit(for: user) else { return }
        try StoreQuota.admitSaves(used: try await backend.storedChunkBytes(), limit: quota)
    }
}
