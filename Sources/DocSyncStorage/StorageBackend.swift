import DocSyncCore
import Foundation

/// Where a user's zones, records and chunks live: the embedded local backend, the HTTP
/// client of `docsync-server`, or a test wrapper around either.
///
/// Every method throws only `SyncError`, with the codes listed on it; beyond those, any
/// method may throw the transient codes (`networkFailure`, `networkUnavailable`,
/// `serviceUnavailable`, `zoneBusy`, `requestRateLimited`), after which the caller retries,
/// and `notAuthenticated` or `quotaExceeded`. A transient failure of a write does not say
/// whether the write landed: every write is safe to repeat (saves by change tag, chunk
/// uploads and deletions idempotently). Implementations are safe to call concurrently and
/// from several processes at once.
public protocol StorageBackend: Sendable {
    /// Creates `zone`. Does not fail when it already exists.
    /// Throws `invalidArguments` for a bad name.
    func createZone(_ zone: ZoneID) async throws(SyncError)

    /// Deletes `zone` with all its records, its change history and its Recently Deleted; a
    /// device still syncing it will see `zoneNotFound` and treat it as `userDeletedZone`.
    /// Throws `zoneNotFound` when it does not exist. Chunks stay stored (they belong to the
    /// user) until a garbage collection finds nothing else referencing them.
    func deleteZone(_ zone: ZoneID) async throws(SyncError)

    /// Every zone, sorted by name (a moved zone, which is only a redirect, is not listed).
    func listZones() async throws(SyncError) -> [ZoneID]

    /// Moves `zone` into `target` (SPEC §13: a folder that syncs turned encrypted, its
    /// records already saved sealed into `target` by the device that moves it).
    ///
    /// Removes every record, tombstone, change, Recently Deleted entry and replaced version
    /// of `zone`, and keeps `zone` as a redirect: from then on every call naming it
    /// (`createZone`, `modifyRecords`, `fetchChanges`, `fetchRecords`, `listDeleted`,
    /// `recoverDeleted`, `purgeDeleted`) throws `zoneMoved` with `movedTo` = `target`, so a
    /// device that was offline or runs an older daemon never writes there again;
    /// `deleteZone` removes the redirect. The chunks only `zone` referenced are garbage at
    /// once, without the grace period: before the call returns they are removed and every
    /// pack that held one is rewritten. Devices syncing `zone` are notified.
    ///
    /// Moving a moved zone again into the same `target` succeeds (a retried call); into
    /// another throws `zoneMoved`. Throws `zoneNotFound` when either zone does not exist,
    /// `invalidArguments` when they are the same, and `permissionDenied` for a shared zone's
    /// participant (only the owner moves a zone).
    func moveZone(_ zone: ZoneID, to target: ZoneID) async throws(SyncError)

    /// Saves and deletes the records of `batch`, returning each item's own result.
    ///
    /// A save is based on the change tag its record carries (`nil`: the record must not
    /// exist yet); when the server's tag differs, that item fails with `serverRecordChanged`
    /// carrying the server's record. A deletion with a base tag fails the same way on a
    /// mismatch; deleting a record that does not exist succeeds. A saved Document's chunks
    /// (or top-level manifest nodes) must already be stored, or the item fails with
    /// `chunkNotFound`. Invalid records fail with `invalidArguments` (or `limitExceeded` when
    /// larger than `Record.maximumEncodedSize`). When `batch.atomic` is set, nothing is
    /// applied unless every item succeeds, and the items that were fine fail with
    /// `batchRequestFailed`. Otherwise the good items stand whatever the others do.
    ///
    /// Throws `zoneNotFound` when the zone does not exist and `limitExceeded` when the
    /// batch has more than `RecordBatch.maximumItems` items (split it and resend).
    func modifyRecords(_ batch: RecordBatch) async throws(SyncError) -> ModifyResult

    /// What changed in `zone` after `token` (`nil`: from the beginning): at most `limit`
    /// items (capped by the backend), changed records with their current fields and
    /// deletions as tombstones, oldest change first. Each record appears once, in its latest
    /// state. Fetch again with the returned token while `moreComing` is true.
    ///
    /// Throws `zoneNotFound` when the zone does not exist, and `changeTokenExpired` when the
    /// token belongs to another zone or an earlier incarnation of it, or predates history
    /// the backend has compacted: drop it and fetch from `nil`.
    func fetchChanges(in zone: ZoneID, since token: ChangeToken?, limit: Int) async throws(SyncError) -> ChangeSet

    /// The current records for `ids` (all in one zone); ids without a record are absent
    /// from the result. Throws `zoneNotFound` when the zone does not exist.
    func fetchRecords(_ ids: [RecordID]) async throws(SyncError) -> [RecordID: Record]

    /// Which of `digests` are not stored. Cheap for thousands of digests at once. A chunk
    /// stored but referenced by nothing may be collected before a record names it: the save
    /// then fails with `chunkNotFound` (upload it again).
    func missingChunks(_ digests: [SHA256Digest]) async throws(SyncError) -> Set<SHA256Digest>

    /// Stores a chunk under its digest after checking the bytes hash to it. Storing a chunk
    /// that is already stored succeeds and keeps one copy (and keeps it safe from garbage
    /// collection for another grace period).
    /// Throws `chunkDigestMismatch` when the bytes do not match `digest` (nothing stored) and
    /// `limitExceeded` when longer than `StorageLimits.maximumChunkSize`.
    func uploadChunk(_ digest: SHA256Digest, bytes: Data) async throws(SyncError)

    /// Stores several chunks at once, with the errors of `uploadChunk` (a bad chunk fails
    /// the call; chunks stored before it stay stored). When it returns, every chunk is
    /// stored. Backends may make this much cheaper than one call per chunk (one flush, one
    /// request); the default calls `uploadChunk` for each.
    ///
    /// A sealed chunk (`ChunkUpload.bodyDigest` set, SPEC §13) is stored under its id when its
    /// bytes hash to its body digest (`chunkDigestMismatch` otherwise), and the store keeps
    /// that digest to check the bytes against on every read. A chunk already stored under
    /// the same id is not stored again: the first copy, with its body digest, stays.
    func uploadChunks(_ chunks: [ChunkUpload]) async throws(SyncError)

    /// The bytes of a stored chunk, verified before they are returned: against its digest,
    /// or for a sealed chunk against the body digest it was stored with. Throws
    /// `chunkNotFound` when it is not stored and `chunkCorrupt` when the stored bytes no
    /// longer match (the two are distinct: a missing chunk can be uploaded again, a corrupt
    /// one needs repair).
    func downloadChunk(_ digest: SHA256Digest) async throws(SyncError) -> Data

    /// The verified bytes of several chunks, with the errors of `downloadChunk` (the first
    /// chunk that is missing or corrupt fails the call). Backends may make this much cheaper
    /// than one call per chunk; the default calls `downloadChunk` for each.
    func downloadChunks(_ digests: [SHA256Digest]) async throws(SyncError) -> [SHA256Digest: Data]

    /// A stream that yields whenever records of some zone change — by this client, another
    /// client or another process — naming the zones concerned (a deleted zone is named too).
    /// Notifications may be coalesced but a change is never followed by silence: after the
    /// last yield, a fetch sees every change. The stream ends when the consumer stops
    /// iterating or the backend is closed.
    func changeNotifications() -> AsyncStream<ChangeNotification>

    /// The records of `zone` in Recently Deleted (SPEC §4a): deleted within the backend's
    /// `deleted_retention`, and neither recovered nor purged since; newest deletion first.
    /// With `since`, only those deleted at or after it. A record deleted, recovered and
    /// deleted again is listed once, with its latest deletion.
    /// Throws `zoneNotFound` when the zone does not exist.
    func listDeleted(in zone: ZoneID, since: Timestamp?) async throws(SyncError) -> [DeletedRecord]

    /// Brings records back from Recently Deleted as live records with new change tags (each
    /// at the `path` its recovery names, or its last one; `lastModifiedBy` the recovering
    /// device), returning each item's own result as `modifyRecords` does: saved, or failed
    /// with `unknownItem` (not in Recently Deleted: never deleted, recovered already,
    /// purged or expired), `serverRecordChanged` carrying the live record (a record with
    /// that name lives again), or `invalidArguments` (a bad path). A recovered record leaves
    /// Recently Deleted and reaches other devices through `fetchChanges` like any save.
    /// Throws `zoneNotFound`, and `limitExceeded` for more than `RecordBatch.maximumItems`.
    func recoverDeleted(_ recoveries: [DeletedRecordRecovery], in zone: ZoneID) async throws(SyncError) -> ModifyResult

    /// Empties Recently Deleted of `ids` now (`nil`: of every record of `zone`), returning
    /// how many records left it; names not listed are ignored. Their chunks become garbage
    /// once nothing else references them. Throws `zoneNotFound`.
    func purgeDeleted(in zone: ZoneID, ids: [RecordID]?) async throws(SyncError) -> Int

    /// How much the user stores.
    func usage() async throws(SyncError) -> StorageUsage

    /// Gives back memory the backend keeps only for speed (page caches), because the caller
    /// is about to idle. Nothing it stores or will answer changes. Must not block: it is
    /// called from the engine's task.
    func releaseMemory()
}

extension StorageBackend {
    /// Plain chunks only: `uploadChunk` has no room for a sealed chunk's body digest, so a
    /// backend that may be given sealed chunks implements this itself.
    public func uploadChunks(_ chunks: [ChunkUpload]) async throws(SyncError) {
        if let sealed = chunks.first(where: { $0.bodyDigest != nil }) {
            throw SyncError(.internalError, "\(Self.self) stores chunks one at a time and cannot keep the body digest of sealed chunk \(sealed.digest.shortHex); it must implement uploadChunks",
                            digest: sealed.digest)
        }
        for chunk in chunks { try await uploadChunk(chunk.digest, bytes: chunk.bytes) }
    }

    public func downloadChunks(_ digests: [SHA256Digest]) async throws(SyncError) -> [SHA256Digest: Data] {
        var found: [SHA256Digest: Data] = [:]
        for digest in digests where found[digest] == nil { found[digest] = try await downloadChunk(digest) }
        return found
    }

    /// Keeps nothing worth giving back.
    public func releaseMemory() {}
}

/// Limits every backend enforces.
public enum StorageLimits {
    /// The largest chunk a backend accepts: the chunker's maximum, with room for manifest nodes.
    public static let maximumChunkSize = 1 << 24
    /// The most items `fetchChanges` returns in one page, whatever the `limit` asked.
    public static let maximumPageSize = 1000
}

