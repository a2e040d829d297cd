import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import Foundation
import HTTPTypes
import Hummingbird

/// Chunks (see `WireRoute`): raw bytes one at a time, `ChunkFraming` bodies many at a time.
/// The storage checks every uploaded chunk against its digest and every downloaded one
/// before it is sent; a sealed chunk (SPEC §13), which only framed uploads carry, against
/// the body digest sent with it and kept beside it, which goes with it when it is sent (in
/// its frame, or as `WireRoute.bodyDigestHeader`). An upload batch is read and stored as its
/// body streams in. Under `/v1/shared/{owner}` the chunks are the owner's
/// (`ZoneGate.chunkBackend`), and so is the quota they count against.
struct ChunkRoutes: Sendable {
    let store: any ServerStore
    let quotas: AccountQuotas
    var gate: ZoneGate { ZoneGate(store: store) }

    func register(on api: RouterGroup<ServerRequestContext>) {
        api.post("chunks/missing") { request, context in
            let digests = try await RequestInput.json(WireBody.Digests.self, request, limit: WireLimits.digestListBody).digests
            try Self.checkCount(digests.count)
            let missing = try await gate.chunkBackend(context, .read).missingChunks(digests)
            return try Responses.json(WireBody.Missing(missing: missing.sorted()))
        }
        api.put("chunks/{digest}") { request, context in
            let digest = try RequestInput.digest(context)
            let bytes = try await RequestInput.body(request, limit: WireLimits.chunkBody)
            let backend = try await gate.chunkBackend(context, .save)
            let limit = try await quotas.limit(for: try ZoneGate.owner(context))
            try await backend.uploadChunks([ChunkUpload(digest: digest, bytes: bytes)], byteLimit: limit)
            return Responses.noContent
        }
        api.get("chunks/{digest}") { _, context in
            let digest = try RequestInput.digest(context)
            let backend = try await gate.chunkBackend(context, .read)
            let chunk = try await backend.chunksForClient(prefixOf: [digest], budget: 0, cost: { $0 })[0]
            var response = Responses.bytes(chunk.bytes)
            if let bodyDigest = chunk.bodyDigest { response.headers[Self.bodyDigestField] = bodyDigest.hex }
            return response
        }
        api.post("chunks/upload") { request, context in
            let backend = try await gate.chunkBackend(context, .save)
            try await Self.storeStreamed(request, into: backend, byteLimit: try await quotas.limit(for: try ZoneGate.owner(context)))
            return Responses.noContent
        }
        api.post("chunks/download") { request, context in
            let digests = try await RequestInput.json(WireBody.Digests.self, request, limit: WireLimits.digestListBody).digests
            try Self.checkCount(digests.count)
            let backend = try await gate.chunkBackend(context, .read)
            return Responses.bytes(try await Self.framedPrefix(of: digests, from: backend))
        }
    }

    /// Stores a framed upload as its body arrives: frames are checked and written, a group
    /// of about 1 MB at a time, into one new pack (`ChunkBatchWriter`), so a request holds
    /// one group and one frame in memory, not its whole body (on the embedded store; the
    /// scale-out store keeps the batch's chunks until it writes them as one object). The batch is stored only once
    /// the body has ended between frames with every chunk right; otherwise nothing of it is.
    /// With `byteLimit` (the user's quota), a batch whose new chunks would take the user's
    /// storage past it is refused whole (`quotaExceeded`).
    static func storeStreamed(_ request: Request, into backend: any ServerStorageBackend, byteLimit: Int64?) async throws(SyncError) {
        try RequestInput.checkDeclaredLength(request, limit: WireLimits.uploadBatchBody)
        let batch = backend.makeChunkBatch()
        do {
            try await receiveFrames(of: request, into: batch)
            try await batch.commit(byteLimit: byteLimit)
        } catch {
            await batch.abort()
            throw (error as? SyncError) ?? SyncError(.networkFailure, "reading the request body failed (\(error))")
        }
    }

    private static func receiveFrames(of request: Request, into batch: any StreamedChunkBatch) async throws {
        var reader = ChunkFrameReader(maximumChunks: WireLimits.chunksPerBatch)
        var group: [ChunkUpload] = []
        var groupBytes = 0
        var received = 0
        func store() async throws(SyncError) {
            let chunks = group
            group = []
            groupBytes = 0
            try await batch.add(chunks)
        }
        for try await piece in request.body {
            received += piece.readableBytes
            guard received <= WireLimits.uploadBatchBody else {
                throw SyncError(.limitExceeded, "the body is larger than the \(WireLimits.uploadBatchBody) bytes \(request.uri.path) accepts; split it")
            }
            reader.append(piece)
            while let chunk = try reader.next() {
                group.append(chunk)
                groupBytes += chunk.bytes.count
                if groupBytes >= 1 << 20 { try await store() }
            }
        }
        try reader.finish()
        if !group.isEmpty { try await store() }
    }

    /// The first chunks of `digests`, framed in order (a sealed one with its body digest): as
    /// many as fit `WireLimits.downloadBatchBudget` bytes, and at least one. Each counts as a
    /// plain frame; a sealed frame's 32 bytes more stay within what a client reads past the
    /// budget (1 MiB, at most `WireLimits.digestsPerRequest` frames). Their places are looked
    /// up first (all in one lookup) so that no more is read than is sent.
    static func framedPrefix(of digests: [SHA256Digest], from backend: any ServerStorageBackend) async throws(SyncError) -> ByteBuffer {
        let chunks = try await backend.chunksForClient(prefixOf: digests, budget: WireLimits.downloadBatchBudget,
                                                      cost: { ChunkFraming.frameSize(chunkLength: $0) })
        let body = ChunkFraming.encode(chunks, pool: .shared)
        // Kept while it is still being sent: it is reused only once the answer has let go of it.
        BodyBufferPool.shared.keep(body)
        return body
    }

    static let bodyDigestField = HTTPField.Name(WireRoute.bodyDigestHeader)!

    static func checkCount(_ count: Int) throws(SyncError) {
        guard count <= WireLimits.digestsPerRequest else {
            throw SyncError(.limitExceeded, "\(count) digests in one request; send at most \(WireLimits.digestsPerRequest)")
        }
    }
}
