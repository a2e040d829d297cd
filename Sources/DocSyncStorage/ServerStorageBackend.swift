import DocSyncCore
import Foundation

/// What docsync-server needs of a user's store beyond `StorageBackend`: quotas applied to
/// uploads, chunk reads cut to a byte budget, the bytes stored, and uploads stored as their
/// body streams in. The embedded store (`LocalBackend`) and the scale-out store's
/// backends both provide it, with the same meaning.
public protocol ServerStorageBackend: StorageBackend {
    /// Stores `chunks` as `uploadChunks(_:)` does; with `byteLimit`, a batch whose new
    /// chunks would take the user's chunks past that many bytes is refused whole with
    /// `quotaExceeded` carrying the usage and the limit.
    func uploadChunks(_ chunks: [ChunkUpload], byteLimit: Int64?) async throws(SyncError)

    /// The first chunks of `digests`, in order (a repeated digest is repeated), verified: as
    /// many as fit `budget` when each counts `cost(length)`, and at least one. Each is marked
    /// `isVerified`, and a sealed one carries the body digest it was stored with (what its
    /// bytes were checked against, and what the wire sends with them). Throws
    /// `chunkNotFound` for the first digest of that prefix that is not stored, and
    /// `chunkCorrupt` for one whose stored bytes do not match.
    func downloadChunks(prefixOf digests: [SHA256Digest], budget: Int,
                        cost: @escaping @Sendable (Int) -> Int) async throws(SyncError) -> [ChunkUpload]

    /// As `downloadChunks(prefixOf:budget:cost:)`, for a client that verifies every chunk it
    /// receives (docsync's HTTP client does): a store may hand a plain chunk's bytes out
    /// without hashing them again (they were verified when stored), marked not `isVerified`.
    /// A sealed chunk is still checked against its body digest (SPEC §13). A store that
    /// does not say otherwise verifies them all, as `downloadChunks` does.
    func chunksForClient(prefixOf digests: [SHA256Digest], budget: Int,
                         cost: @escaping @Sendable (Int) -> Int) async throws(SyncError) -> [ChunkUpload]

    /// The bytes of every chunk the user stores, from the store's counters: what a quota is
    /// checked against.
    func storedChunkBytes() async throws(SyncError) -> Int64

    /// A batch of chunks stored as they arrive (a streamed upload).
    func makeChunkBatch() -> any StreamedChunkBatch

    /// Tells every stream of `changeNotifications()` — of this server process and of every
    /// instance sharing the store — that `zone` changed although none of its records did
    /// (its share did): listeners fetch and find out.
    func announce(_ zone: ZoneID) async throws(SyncError)
}

extension ServerStorageBackend {
    public func chunksForClient(prefixOf digests: [SHA256Digest], budget: Int,
                                cost: @escaping @Sendable (Int) -> Int) async throws(SyncError) -> [ChunkUpload] {
        try await downloadChunks(prefixOf: digests, budget: budget, cost: cost)
    }
}

/// Chunks of one upload, checked as they arrive and stored together: nothing of the batch
/// is stored unless `commit` succeeds.
public protocol StreamedChunkBatch: Sendable {
    /// Checks `chunks` and keeps them for the batch. Throws `limitExceeded` for a chunk over
    /// the size limit and `chunkDigestMismatch` for one whose bytes do not hash to its
    /// digest (a sealed chunk's: its body digest); the batch must then be aborted.
    func add(_ chunks: [ChunkUpload]) async throws(SyncError)
    /// Stores the batch; with `byteLimit`, refuses it whole (`quotaExceeded`) when its new
    /// chunks would take the user past that many bytes.
    func commit(byteLimit: Int64?) async throws(SyncError)
    /// Gives the batch up; nothing of it is stored. Does nothing after `commit`.
    func abort() async
}

extension LocalBackend: ServerStorageBackend {
    public func makeChunkBatch() -> any StreamedChunkBatch { LocalChunkBatch(writer: chunkBatch()) }

    /// Reaches the streams of this process only: an embedded store is served by one process.
    public func announce(_ zone: ZoneID) async throws(SyncError) { announceToSubscribers(zone) }
}

/// A streamed upload into the embedded store: a `ChunkBatchWriter` (one new pack file),
/// its blocking work off the caller's thread.
struct LocalChunkBatch: StreamedChunkBatch {
    let writer: ChunkBatchWriter

    func add(_ chunks: [ChunkUpload]) async throws(SyncError) {
        let writer = self.writer
        try await offload { () throws(SyncError) in try writer.add(chunks) }
    }

    func commit(byteLimit: Int64?) async throws(SyncError) {
        let writer = self.writer
        try await offload { () throws(SyncError) in try writer.commit(byteLimit: byteLimit) }
    }

    func abort() async {
        writer.abort()
    }
}
