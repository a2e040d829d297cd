import DocSyncCore
import DocSyncStorage
import Foundation
import Synchronization

/// A streamed upload into the scale-out store: chunks are checked as they arrive (a sealed
/// one against its body digest, which is kept with it) and kept in memory (an upload body is
/// at most a few tens of megabytes), then stored by `commit` as one pack object, as
/// `uploadChunks` stores a batch.
final class ScaleOutChunkBatch: StreamedChunkBatch {
    private let backend: ScaleOutBackend
    private let chunks = Mutex<[ChunkUpload]?>([])

    init(backend: ScaleOutBackend) {
        self.backend = backend
    }

    func add(_ arriving: [ChunkUpload]) async throws(SyncError) {
        var checked: [ChunkUpload] = []
        checked.reserveCapacity(arriving.count)
        for var chunk in arriving {
            try chunk.checkBeforeStoring()
            chunk.isVerified = true  // checked here: `uploadChunks` does not hash it again
            checked.append(chunk)
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
