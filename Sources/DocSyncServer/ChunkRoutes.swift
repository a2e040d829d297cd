import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import Foundation
import Hummingbird

/// Chunks (see `WireRoute`): raw bytes one at a time, `ChunkFraming` bodies many at a time.
/// The storage checks every uploaded chunk against its digest and every downloaded one
/// before it is sent.
struct ChunkRoutes: Sendable {
    let backends: UserBackends

    func register(on api: RouterGroup<ServerRequestContext>) {
        let records = RecordRoutes(backends: backends)
        api.post("chunks/missing") { request, context in
            let digests = try await RequestInput.json(WireBody.Digests.self, request, limit: WireLimits.digestListBody).digests
            try Self.checkCount(digests.count)
            let missing = try await records.backend(context).missingChunks(digests)
            return try Responses.json(WireBody.Missing(missing: missing.sorted()))
        }
        api.put("chunks/{digest}") { request, context in
            let digest = try RequestInput.digest(context)
            let bytes = try await RequestInput.body(request, limit: WireLimits.chunkBody)
            try await records.backend(context).uploadChunk(digest, bytes: bytes)
            return Responses.noContent
        }
        api.get("chunks/{digest}") { _, context in
            let digest = try RequestInput.digest(context)
            return Responses.bytes(try await records.backend(context).downloadChunk(digest))
        }
        api.post("chunks/upload") { request, context in
            let body = try await RequestInput.body(request, limit: WireLimits.uploadBatchBody)
            let chunks = try ChunkFraming.decode(body, maximumChunks: WireLimits.chunksPerBatch)
            try await records.backend(context).uploadChunks(chunks)
            return Responses.noContent
        }
        api.post("chunks/download") { request, context in
            let digests = try await RequestInput.json(WireBody.Digests.self, request, limit: WireLimits.digestListBody).digests
            try Self.checkCount(digests.count)
            let backend = try records.backend(context)
            return Responses.bytes(try await Self.framedPrefix(of: digests, from: backend))
        }
    }

    /// The first chunks of `digests`, framed in order: as many as fit
    /// `WireLimits.downloadBatchBudget` bytes, and at least one. Their lengths are looked up
    /// first so that no more is read than is sent.
    static func framedPrefix(of digests: [SHA256Digest], from backend: LocalBackend) async throws(SyncError) -> Data {
        var prefix: [SHA256Digest] = []
        var size = 0
        for digest in digests {
            guard let location = try backend.chunkLocation(digest) else { throw SyncError.chunkNotFound(digest) }
            if !prefix.isEmpty, size + ChunkFraming.frameSize(chunkLength: location.length) > WireLimits.downloadBatchBudget { break }
            prefix.append(digest)
            size += ChunkFraming.frameSize(chunkLength: location.length)
        }
        let found = try await backend.downloadChunks(prefix)
        var body = Data()
        body.reserveCapacity(size)
        for digest in prefix {
            guard let bytes = found[digest] else { throw SyncError.chunkNotFound(digest) }
            ChunkFraming.append(digest: digest, bytes: bytes, to: &body)
        }
        return body
    }

    static func checkCount(_ count: Int) throws(SyncError) {
        guard count <= WireLimits.digestsPerRequest else {
            throw SyncError(.limitExceeded, "\(count) digests in one request; send at most \(WireLimits.digestsPerRequest)")
        }
    }
}
