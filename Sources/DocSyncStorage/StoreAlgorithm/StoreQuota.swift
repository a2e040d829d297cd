import DocSyncCore

/// How a quota bounds uploads, the same for every store: an upload whose new chunks (those
/// not stored yet) would take what the user stores past the quota is refused whole with
/// `quotaExceeded` carrying the usage and the limit. Chunks stored already cost nothing, so
/// an account at its quota can still save records naming them and upload them again.
public enum StoreQuota {
    /// Throws `quotaExceeded` (`SyncError.accountFull`) when adding `adding` bytes to `used`
    /// goes past `limit`; `nil` is no limit.
    public static func admit(adding: Int64, to used: Int64, limit: Int64?) throws(SyncError) {
        guard let limit, adding > 0, used + adding > limit else { return }
        throw SyncError.accountFull(AccountQuota(usedBytes: used, quotaBytes: limit), adding: adding)
    }

    /// Throws `quotaExceeded` when `used` is already past `limit` (a quota lowered below what
    /// is stored): saves are refused then. Deletions, recoveries and purges never are: they
    /// add nothing, and a purge is how space comes back.
    public static func admitSaves(used: Int64, limit: Int64?) throws(SyncError) {
        guard let limit, used > limit else { return }
        throw SyncError.accountFull(AccountQuota(usedBytes: used, quotaBytes: limit))
    }
}
