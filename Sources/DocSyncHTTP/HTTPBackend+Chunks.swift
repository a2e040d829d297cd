import DocSyncCore
import DocSyncStorage
import Foundation
import NIOCore
import Synchronization

/// Chunks: raw bytes for one, framed batches (`ChunkFraming`) for many, a few requests in
/// flight at once, every received chunk checked against its digest — a sealed chunk's
/// against the body digest the server sends with it (the server checked it against the one
/// it was stored with; the device authenticates the body itself with its key).
extension HTTPBackend {
    public func missingChunks(_ digests: [SHA256Digest]) async throws(SyncError) -> Set<SHA256Digest> {
        let unique = Array(Set(digests)).sorted()
        var missing = Set<SHA256Digest>()
        for start in stride(from: 0, to: unique.count, by: WireLimits.digestsPerRequest) {
            let slice = Array(unique[start ..< min(start + WireLimits.digestsPerRequest, unique.count)])
            let answer = try await sendJSON(.POST, WireRoute.missingChunks, WireBody.Digests(digests: slice),
                                            as: WireBody.Missing.self, context: "look up \(slice.count) chunks")
            missing.formUnion(answer.missing)
        }
        return missing
    }

    public func uploadChunk(_ digest: SHA256Digest, bytes: Data) async throws(SyncError) {
        guard bytes.count <= StorageLimits.maximumChunkSize else {
            throw SyncError(.limitExceeded, "chunk \(digest.shortHex) has \(bytes.count) bytes, more than \(StorageLimits.maximumChunkSize)", digest: digest)
        }
        await TransferRateLimit.upload.pace(bytes.count)
        _ = try await send(.PUT, WireRoute.chunk(digest), body: ByteBuffer(bytes: bytes), contentType: WireRoute.octetStream,
                           context: "upload chunk \(digest.shortHex)")
    }

    public func uploadChunks(_ chunks: [ChunkUpload]) async throws(SyncError) {
        var seen = Set<SHA256Digest>()
        var unique: [ChunkUpload] = []
        for chunk in chunks where seen.insert(chunk.digest).inserted {
            guard chunk.bytes.count <= StorageLimits.maximumChunkSize else {
                throw SyncError(.limitExceeded, "chunk \(chunk.digest.shortHex) has \(chunk.bytes.count) bytes, more than \(StorageLimits.maximumChunkSize)",
                                digest: chunk.digest)
            }
            unique.append(chunk)
        }
        let batches = ChunkFraming.batches(unique, maximumBodySize: TransferRateLimit.upload.batchSize(atMost: options.chunkBatchSize),
                                           maximumChunks: WireLimits.chunksPerBatch)
        try await forEachConcurrently(batches) { (batch) throws(SyncError) in
            await TransferRateLimit.upload.pace(batch.reduce(0) { $0 + $1.bytes.count })
            let body = ChunkFraming.encode(batch, pool: .shared)
            defer { BodyBufferPool.shared.keep(body) }
            _ = try await self.send(.POST, WireRoute.uploadBatch, body: body, contentType: WireRoute.octetStream,
                                    context: "upload \(batch.count) chunks")
        }
    }

    public func downloadChunk(_ digest: SHA256Digest) async throws(SyncError) -> Data {
        let answer = try await send(.GET, WireRoute.chunk(digest), accept: WireRoute.octetStream,
                                    responseLimit: StorageLimits.maximumChunkSize, context: "download chunk \(digest.shortHex)")
        let bytes = answer.data
        await TransferRateLimit.download.pace(bytes.count)
        var expected = digest
        if let header = answer.headers.first(name: WireRoute.bodyDigestHeader) {
            guard let bodyDigest = SHA256Digest(hex: header) else {
                throw SyncError(.internalError, "download chunk \(digest.shortHex): the server sent \(WireRoute.bodyDigestHeader) \(header.prefix(80).debugDescription), not 64 hex digits; is it a compatible docsync-server?")
            }
            expected = bodyDigest
        }
        guard SHA256Digest(hashing: bytes) == expected else {
            throw SyncError(.chunkCorrupt, "chunk \(digest.shortHex) arrived with bytes that do not match its digest; fetch it again", digest: digest)
        }
        return bytes
    }

    public func downloadChunks(_ digests: [SHA256Digest]) async throws(SyncError) -> [SHA256Digest: Data] {
        var seen = Set<SHA256Digest>()
        let unique = digests.filter { seen.insert($0).inserted }
        guard !unique.isEmpty else { return [:] }
        let parallelism = max(1, options.chunkTransferParallelism)
        // Under a download limit a request asks for about a second of it (chunks of 256 KiB
        // on average), so that pacing stays even.
        let limit = TransferRateLimit.download.bytesPerSecond
        let groupSize = min(WireLimits.digestsPerRequest, max(1, (unique.count + parallelism - 1) / parallelism), 1000,
                            limit == 0 ? Int.max : max(1, Int(min(limit / 262_144, 1000))))
        let groups = stride(from: 0, to: unique.count, by: groupSize).map { Array(unique[$0 ..< min($0 + groupSize, unique.count)]) }
        let found = ChunkCollector()
        try await forEachConcurrently(groups) { (group) throws(SyncError) in
            var remaining = group[...]
            while !remaining.isEmpty {
                let received = try await self.downloadBatch(Array(remaining))
                await TransferRateLimit.download.pace(received.reduce(0) { $0 + $1.bytes.count })
                found.add(received)
                remaining = remaining.dropFirst(received.count)
            }
        }
        return found.chunks
    }

    /// One download request: the first chunks of `digests`, in order, each verified (a sealed
    /// one against the body digest its frame carries).
    private func downloadBatch(_ digests: [SHA256Digest]) async throws(SyncError) -> [ChunkUpload] {
        let context = "download \(digests.count) chunks"
        let body = try Self.encode(WireBody.Digests(digests: digests), context: context)
        let chunks = try await sendForChunks(.POST, WireRoute.downloadBatch, body: body, contentType: WireRoute.json, maximumChunks: WireLimits.digestsPerRequest,
                                             responseLimit: WireLimits.downloadBatchBudget + StorageLimits.maximumChunkSize + 1 << 20, context: context)
        guard !chunks.isEmpty, chunks.count <= digests.count else {
            throw SyncError(.internalError, "\(context): the server answered with \(chunks.count) chunks; is it a compatible docsync-server?")
        }
        for (index, chunk) in chunks.enumerated() {
            guard chunk.digest == digests[index] else {
                throw SyncError(.internalError, "\(context): the server sent chunk \(chunk.digest.shortHex) where \(digests[index].shortHex) was asked")
            }
            guard SHA256Digest(hashing: chunk.bytes) == chunk.bytesDigest else {
                throw SyncError(.chunkCorrupt, "chunk \(chunk.digest.shortHex) arrived with bytes that do not match its digest; fetch it again",
                                digest: chunk.digest)
            }
        }
        return chunks
    }

    /// Runs `body` for each element, at most `chunkTransferParallelism` at once; the first
    /// error cancels the others and is thrown.
    func forEachConcurrently<Element: Sendable>(
        _ elements: [Element], _ body: @escaping @Sendable (Element) async throws(SyncError) -> Void
    ) async throws(SyncError) {
        let parallelism = max(1, options.chunkTransferParallelism)
        if elements.count <= 1 || parallelism == 1 {
            for element in elements { try await body(element) }
            return
        }
        let failure: SyncError? = await withTaskGroup(of: SyncError?.self) { group in
            var next = 0
            func startNext() {
                guard next < elements.count else { return }
                let element = elements[next]
                next += 1
                group.addTask {
                    do throws(SyncError) {
                        try await body(element)
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            for _ in 0 ..< min(parallelism, elements.count) { startNext() }
            while let result = await group.next() {
                if let error = result {
                    group.cancelAll()
                    return error
                }
                startNext()
            }
            return nil
        }
        if let failure { throw failure }
    }
}

/// The chunks several concurrent download requests have received.
private final class ChunkCollector: Sendable {
    private let received = Mutex<[SHA256Digest: Data]>([:])

    func add(_ chunks: [ChunkUpload]) {
        received.withLock { found in for chunk in chunks { found[chunk.digest] = chunk.bytes } }
    }

    var chunks: [SHA256Digest: Data] { received.withLock { $0 } }
}
