import DocSyncCore
import DocSyncStorage
import Foundation
import Synchronization

/// A streamed upload into the scale-out store: chunks are checked as they arrive and kept
/// in memory (an upload body is at most a few tens of megabytes), then stored by `commit`
/// as one pack object, as `uploadChunks` stores a batch.
final class ScaleOutChunkBatch: StreamedChunkBatch {
    private let backend: ScaleOutBackend
    private let chunks = Mutex<[ChunkUpload]?>([])

    init(backend: ScaleOutBackend) {
        self.backend = backend
    }

    func add(_ arriving: [ChunkUpload]) async throws(SyncError) {
        var checked: [ChunkUpload] = []
        checked.reserveCapacity(arriving.count)
        for chunk in arriving {
            guard chunk.bytes.count <= StorageLimits.maximumChunkSize else {
                throw SyncError(.limitExceeded, "chunk \(chunk.digest.shortHex) is \(chunk.bytes.count) bytes, more than the \(StorageLimits.maximumChunkSize) allowed", digest: chunk.digest)
            }
            guard chunk.isVerified || SHA256Digest(hashing: chunk.bytes) == chunk.digest else {
                throw SyncError(.chunkDigestMismatch, "chunk bytes do not hash to \(chunk.digest.shortHex); nothing was stored", digest: chunk.digest)
            }
            checked.append(ChunkUpload(digest: chunk.digest, bytes: chunk.bytes, isVerified: true))
        }
        chunks.withLock { $0?.append(contentsOf: checked) }
    }

    func commit(byteLimit: Int64?) async throws(SyncError) {
        guard let batch = chunks.withLock({ state in defer { state = nil }; return state }), !batch.isEmpty else { return }
        try await backend.uploadChunks(batch, byteLimit: byteLimit)
    }

    func abort() async {
        chunks.withLock { $0 = nil }
    }
}

extension ScaleOutBackend: ServerStorageBackend {
    public func makeChunkBatch() -> any StreamedChunkBatch { ScaleOutChunkBatch(backend: self) }
}
