import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// Chunk transfers in framed batches: more than one request each way, parallel, counted.
@Suite struct HTTPBackendTransferTests {
    @Test func manyChunksTravelInSeveralBatchesBothWays() async throws {
        let server = try await TestServer()
        let token = try await server.process.addUser("alice")
        let backend = try HTTPBackend(url: server.url, token: token,
                                      options: .init(chunkTransferParallelism: 3, chunkBatchSize: 1 << 20))
        var random = SeededRandom(seed: 7)
        // 12 MB in 32 KiB chunks: 12 upload batches of 1 MiB, and more than one 8 MiB download answer.
        let chunks = (0 ..< 384).map { _ in
            let bytes = Data(random.bytes(32 << 10))
            return ChunkUpload(digest: SHA256Digest(hashing: bytes), bytes: bytes)
        }
        let total = chunks.reduce(0) { $0 + $1.bytes.count }
        #expect(try await backend.missingChunks(chunks.map(\.digest)).count == chunks.count)
        let sentBefore = backend.bytesSent
        try await backend.uploadChunks(chunks + chunks.prefix(10))
        #expect(backend.bytesSent - sentBefore >= total && backend.bytesSent - sentBefore < total + total / 10,
                "each chunk is sent once, with little framing")
        #expect(try await backend.missingChunks(chunks.map(\.digest)).isEmpty)
        #expect(try await backend.usage().chunkCount == chunks.count)

        let receivedBefore = backend.bytesReceived
        let downloaded = try await backend.downloadChunks(chunks.map(\.digest).reversed())
        #expect(downloaded.count == chunks.count)
        for chunk in chunks { #expect(downloaded[chunk.digest] == chunk.bytes) }
        #expect(backend.bytesReceived - receivedBefore >= total)
        #expect(try await backend.downloadChunk(chunks[5].digest) == chunks[5].bytes)

        let absent = SHA256Digest(hashing: Data("never stored".utf8))
        let error = await expectSyncError(.chunkNotFound) { try await backend.downloadChunks([chunks[0].digest, absent]) }
        #expect(error?.digest == absent)
        await backend.shutdown()
    }

    @Test func anUnreachableServerIsNetworkUnavailable() async throws {
        let server = try await TestServer()
        let url = server.url
        _ = try await server.process.stop()
        let backend = try HTTPBackend(url: url, token: "token")
        await expectSyncError(.networkUnavailable) { try await backend.listZones() }
        await expectSyncError(.networkUnavailable) { try await backend.uploadChunks([ChunkUpload(digest: SHA256Digest(hashing: Data()), bytes: Data())]) }
    }

    @Test func badURLsAndTokensAreRefusedAtOnce() {
        for url in ["file:///tmp/x", "ftp://host:1", "http://", "http://host:1/?q=1"] {
            #expect(throws: SyncError.self, "\(url)") { try HTTPBackend(url: URL(string: url)!, token: "t") }
        }
        for token in ["", "two words", "line\nbreak"] {
            #expect(throws: SyncError.self, "\(token.debugDescription)") { try HTTPBackend(url: URL(string: "http://127.0.0.1:1")!, token: token) }
        }
        #expect(throws: SyncError.self) {
            try HTTPBackend(url: URL(string: "https://127.0.0.1:1")!, token: "t",
                            options: .init(trustedCertificateFile: URL(fileURLWithPath: "/nonexistent.pem")))
        }
    }
}
