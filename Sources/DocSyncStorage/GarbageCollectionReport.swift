import Foundation

/// What one collection of the embedded store did (`LocalBackend.collectGarbage`).
public struct GarbageCollectionReport: Sendable, Hashable, Codable {
    /// False when another collector held the store's lock: nothing was done.
    public var ran: Bool = false
    /// Deleted records and replaced versions removed because their retention had passed.
    public var expiredDeletedRecords = 0
    public var expiredReplacedVersions = 0
    /// Chunks (and manifest nodes) that nothing kept referenced, past the grace period, removed.
    public var chunksRemoved = 0
    public var chunkBytesRemoved: Int64 = 0
    /// Packs whose live chunks were copied to a new pack, and packs removed (those and the empty ones).
    public var packsCompacted = 0
    public var packsRemoved = 0
    /// Chunks copied by compaction.
    public var chunksMoved = 0
    /// Bytes of pack files on disk before and after (unindexed leftovers included).
    public var packBytesBefore: Int64 = 0
    public var packBytesAfter: Int64 = 0
    public var seconds: Double = 0
    /// Why nothing was removed although the collection ran (a manifest node that cannot be
    /// read: removing chunks without knowing what it lists could lose a file), or `nil`.
    public var stoppedBecause: String?

    public init() {}

    /// One line for a person.
    public var summary: String {
        guard ran else { return "skipped: another collector is working on this store" }
        var line = "removed \(chunksRemoved) chunks (\(StorageSizeText.describe(chunkBytesRemoved))), "
            + "\(expiredDeletedRecords) expired deleted records and \(expiredReplacedVersions) expired versions; "
            + "compacted \(packsCompacted) packs, removed \(packsRemoved); "
            + "packs \(StorageSizeText.describe(packBytesBefore)) → \(StorageSizeText.describe(packBytesAfter)) "
            + "in \(String(format: "%.2f", seconds)) s"
        if let stoppedBecause { line += "; stopped: \(stoppedBecause)" }
        return line
    }
}
