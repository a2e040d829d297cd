import DocSyncCore
import DocSyncStorage
import Foundation

/// Chunks of `MemoryBackend`: stored once per digest (a sealed chunk with its body digest),
/// each upload checked whole before any of it is stored, every download verified against
/// its digest (a sealed chunk's: its body digest).
extension MemoryBackend {
    public func missingChunks(_ digests: [SHA256Digest]) async throws(SyncError) -> Set<SHA256Digest> {
        read { state, _ in Set(digests.filter { state.chunks[$0] == nil }) }
    }

    public func uploadChunk(_ digest: SHA256Digest, bytes: Data) async throws(SyncError) {
        try store([ChunkUpload(digest: digest, bytes: bytes)])
    }

    /// Stores every chunk or none: a chunk too large or not hashing to its digest, or a
    /// batch past `chunkByteLimit`, fails the call with nothing stored. Bytes are always
    /// hashed here, `isVerified` or not, so a wrong promise fails at once with
    /// `chunkDigestMismatch`.
    public func uploadChunks(_ chunks: [ChunkUpload]) async throws(SyncError) {
        try store(chunks)
    }

    public func downloadChunk(_ digest: SHA256Digest) async throws(SyncError) -> Data {
        try await downloadChunks([digest])[digest]!
    }

    /// The verified bytes of `digests`; the first of them (in the order given) that is not
    /// stored fails the call with `chunkNotFound`, else the first damaged one with `chunkCorrupt`.
    public func downloadChunks(_ digests: [SHA256Digest]) async throws(SyncError) -> [SHA256Digest: Data] {
        let stored = try read { (state, _) throws(SyncError) -> [SHA256Digest: MemoryChunk] in
            var stored: [SHA256Digest: MemoryChunk] = [:]
            for digest in digests where stored[digest] == nil {
                guard let chunk = state.chunks[digest] else { throw SyncError.chunkNotFound(digest) }
                stored[digest] = chunk
            }
            return stored
        }
        for digest in digests where !stored[digest]!.matches(digest) {
            throw SyncError.storedChunkCorrupt(digest, sealed: stored[digest]!.bodyDigest != nil)
        }
        return stored.mapValues(\.bytes)
    }

    /// Damages the stored bytes of `digest` (its first byte flipped; an empty chunk gains
    /// one) so that `downloadChunk` answers `chunkCorrupt` while `missingChunks` still
    /// counts it stored, as a bad disk sector would. Returns false when it is not stored.
    @discardableResult
    public func corruptChunk(_ digest: SHA256Digest) -> Bool {
        state.withLock { state in
            guard var chunk = state.chunks.removeValue(forKey: digest) else { return false }
            if chunk.bytes.isEmpty {
                chunk.bytes = Data([0])
                state.chunkBytes += 1
            } else {
                chunk.bytes[chunk.bytes.startIndex] ^= 0xff
            }
            state.chunks[digest] = chunk
            return true
        }
    }

    private func store(_ chunks: [ChunkUpload]) throws(SyncError) {
        for chunk in chunks { try chunk.checkBeforeStoring(trustingPromise: false) }
        try write { (state, now) throws(SyncError) in
            var new: [SHA256Digest: MemoryChunk] = [:]
            for chunk in chunks where state.chunks[chunk.digest] == nil && new[chunk.digest] == nil {
                new[chunk.digest] = MemoryChunk(bytes: Data(chunk.bytes), storedAt: now, bodyDigest: chunk.bodyDigest)
            }
            let adding = new.values.reduce(Int64(0)) { $0 + Int64($1.bytes.count) }
            try StoreQuota.admit(adding: adding, to: state.chunkBytes, limit: state.chunkByteLimit)
            // Chunks stored already are stored again: a collection leaves them another grace period.
            for chunk in chunks where new[chunk.digest] == nil { state.chunks[chunk.digest]!.storedAt = now }
            for (digest, chunk) in new { state.chunks[digest] = chunk }
            state.chunkBytes += adding
        }
    }
}

extension MemoryBackend {
    /// Undoes `corruptChunk(_:)`: the stored bytes of `digest` hash to it again (as an
    /// operator restoring a damaged chunk from a backup would make them). Returns false when
    /// the chunk is not stored or not damaged that way.
    @discardableResult
    public func repairChunk(_ digest: SHA256Digest) -> Bool {
        state.withLock { state in
            guard var chunk = state.chunks[digest], !chunk.matches(digest), !chunk.bytes.isEmpty else { return false }
            let expected = chunk.bodyDigest ?? digest
            var fixed = chunk.bytes
            fixed[fixed.startIndex] ^= 0xff
            if SHA256Digest(hashing: fixed) == expected {
                chunk.bytes = fixed
            } else if chunk.bytes.count == 1, SHA256Digest(hashing: Data()) == expected {
                chunk.bytes = Data()
                state.chunkBytes -= 1
            } else {
                return false
            }
            state.chunks[digest] = chunk
            return true
        }
    }
}
