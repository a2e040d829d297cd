import DocSyncCore

extension SyncError {
    /// `quotaExceeded` for an account that stores as much as its quota allows (not for a full
    /// disk, which carries no `quota`): what it uses, what it may use, and what to do.
    /// `adding` is what the refused request would have added, when known.
    public static func accountFull(_ quota: AccountQuota, adding: Int64 = 0) -> SyncError {
        let refused = adding > 0 ? "; \(StorageSizeText.describe(adding)) more was refused" : ""
        return SyncError(
            .quotaExceeded,
            "account storage full (\(StorageSizeText.describe(quota.usedBytes)) of \(StorageSizeText.describe(quota.quotaBytes)) used\(refused)); delete or purge files from Recently Deleted, or ask the server's administrator for a larger quota",
            quota: quota)
    }
}

/// Byte counts for people: powers of 1000 with one decimal (`"9.8 GB"`, `"512 B"`).
public enum StorageSizeText {
    public static func describe(_ bytes: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB", "PB"]
        var value = Double(bytes)
        var unit = 0
        while abs(value) >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        if unit == 0 { return "\(bytes) B" }
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? "\(Int64(rounded)) \(units[unit])" : "\(rounded) \(units[unit])"
    }
}
