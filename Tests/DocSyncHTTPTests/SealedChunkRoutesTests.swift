import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// Sealed chunks on the chunk routes (SPEC §13), over both server stores: a framed upload
/// carries each body's SHA-256 and a body that does not match it is refused; downloads send
/// it back (in the sealed frame, or as `Docsync-Body-SHA256` of a single `GET`), plain chunks
/// travel as they always did; under `/v1/shared/{owner}` a participant's sealed chunks are
/// the owner's.
@Suite struct SealedChunkRoutesTests {
    @Test(arguments: StoreKind.allCases) func theServerKeepsEachBodyDigestAndSendsItBack(_ kind: StoreKind) async throws {
        try await RouteServer.with(kind) { server in
            let token = try await server.addUser("alice")
            let chunk = TestSealing.chunk(Data("sealed over the wire".utf8))
            let plainBytes = Data("plain over the wire".utf8)
            let plain = ChunkUpload(digest: SHA256Digest(hashing: plainBytes), bytes: plainBytes)
            let upload = Data(ChunkFraming.encode([plain, ChunkUpload(sealed: chunk)]).readableBytesView)
            let stored = try await RawHTTP.send(.POST, server.url, WireRoute.uploadBatch, token: token, body: upload, contentType: WireRoute.octetStream)
            #expect(stored.status == 204, "\(String(decoding: stored.body, as: UTF8.self))")

            let sealedAnswer = try await RawHTTP.send(.GET, server.url, WireRoute.chunk(chunk.id), token: token)
            #expect(sealedAnswer.status == 200 && sealedAnswer.body == chunk.body)
            #expect(sealedAnswer.headers.first(name: WireRoute.bodyDigestHeader) == chunk.bodyDigest.hex)
            let plainAnswer = try await RawHTTP.send(.GET, server.url, WireRoute.chunk(plain.digest), token: token)
            #expect(plainAnswer.status == 200 && plainAnswer.body == plainBytes)
            #expect(plainAnswer.headers.first(name: WireRoute.bodyDigestHeader) == nil, "a plain chunk's answer is as it was")

            let download = try await RawHTTP.send(.POST, server.url, WireRoute.downloadBatch, token: token,
                                                  body: try RawHTTP.json(WireBody.Digests(digests: [chunk.id, plain.digest])))
            #expect(download.status == 200)
            // What crossed the wire carries no promise of being verified (`isVerified` false).
            #expect(try ChunkFraming.decode(download.body) == [ChunkUpload(digest: chunk.id, bytes: chunk.body, bodyDigest: chunk.bodyDigest), plain],
                    "a sealed frame, then a plain one")
        }
    }

    @Test(arguments: StoreKind.allCases) func aBodyNotMatchingItsDigestIsRefusedWithTheWholeBatch(_ kind: StoreKind) async throws {
        try await RouteServer.with(kind) { server in
            let token = try await server.addUser("alice")
            let alice = try HTTPBackend(url: server.url, token: token)
            let good = TestSealing.chunk(Data("fine".utf8))
            let bad = TestSealing.chunk(Data("altered on the way".utf8))
            var altered = ChunkUpload(sealed: bad)
            altered.bytes[altered.bytes.startIndex + 30] ^= 0x01
            let upload = Data(ChunkFraming.encode([ChunkUpload(sealed: good), altered]).readableBytesView)
            let refused = try await RawHTTP.send(.POST, server.url, WireRoute.uploadBatch, token: token, body: upload, contentType: WireRoute.octetStream)
            #expect(refused.status == 422 && refused.error?.code == .chunkDigestMismatch && refused.error?.digest == bad.id)
            #expect(try await alice.missingChunks([good.id, bad.id]) == [good.id, bad.id], "nothing of a refused batch is stored")
        }
    }

    @Test(arguments: StoreKind.allCases) func aParticipantsSealedChunksAreTheOwners(_ kind: StoreKind) async throws {
        try await RouteServer.with(kind) { server in
            let (alice, bob, bobOwn) = try await SharedZoneRoutesTests.shared(server)
            let chunk = TestSealing.chunk(Data("bob's sealed figures".utf8))
            try await bob.uploadChunks([ChunkUpload(sealed: chunk)])
            #expect(try await alice.downloadChunk(chunk.id) == chunk.body)
            #expect(try await bob.downloadChunks([chunk.id]) == [chunk.id: chunk.body])
            #expect(try await bobOwn.missingChunks([chunk.id]) == [chunk.id])
            #expect(try await server.store.storedBytes(of: "alice") == Int64(chunk.body.count), "on the owner's storage")
        }
    }
}
