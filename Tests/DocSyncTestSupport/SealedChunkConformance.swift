import DocSyncCore
import DocSyncStorage
import Foundation
import Testing

/// The conformance cases of sealed chunks (SPEC §13, §8): every store keeps an encrypted
/// folder's chunk under its id (a keyed MAC it cannot check) with the SHA-256 of its body,
/// refuses a body that does not hash to it, checks the bytes against it on every read (so
/// damage is `chunkCorrupt`, as for a plain chunk), and keeps sealed chunks while a sealed
/// record names them — directly, or through a large file's plain manifest nodes — and
/// sweeps them after.
enum SealedChunkConformance {
    static let keys = TestSealing.keys, zone = TestSealing.zone

    static func roundTrip(_ fixture: BackendFixture) async throws {
        let backend = fixture.backend
        let content = Data(SeededRandom(seed: 71).bytesArray(300_000))
        let chunk = TestSealing.chunk(content)
        #expect(SHA256Digest(hashing: chunk.body) != chunk.id, "a sealed chunk's id is not the SHA-256 of its bytes")
        #expect(try await backend.missingChunks([chunk.id]) == [chunk.id])
        try await backend.uploadChunks([ChunkUpload(sealed: chunk)])
        #expect(try await backend.missingChunks([chunk.id]).isEmpty, "a sealed chunk is stored once uploaded")
        #expect(try await backend.downloadChunk(chunk.id) == chunk.body, "the body byte for byte")
        #expect(try await backend.downloadChunks([chunk.id]) == [chunk.id: chunk.body])
        #expect(try keys.openChunk(try await backend.downloadChunk(chunk.id), id: chunk.id, zone: zone) == content)

        // Sealed again (another nonce, so another body under the same id): stored once, the
        // first body kept.
        let again = TestSealing.chunk(content)
        #expect(again.id == chunk.id && again.body != chunk.body)
        try await backend.uploadChunks([ChunkUpload(sealed: again)])
        let usage = try await backend.usage()
        #expect(usage.chunkCount == 1 && usage.chunkBytes == Int64(chunk.body.count), "\(usage)")
        #expect(try await backend.downloadChunk(chunk.id) == chunk.body)

        // Beside plain chunks in one upload (a large file's manifest nodes are plain), and
        // seen by another client of the same storage.
        let plain = Data("a plain chunk beside sealed ones".utf8)
        let small = TestSealing.chunk(Data("a small sealed chunk".utf8))
        try await backend.uploadChunks([ChunkUpload(digest: SHA256Digest(hashing: plain), bytes: plain), ChunkUpload(sealed: small)])
        let other = try await fixture.openAnotherClient()
        let read = try await other.downloadChunks([SHA256Digest(hashing: plain), small.id, chunk.id])
        #expect(read == [SHA256Digest(hashing: plain): plain, small.id: small.body, chunk.id: chunk.body])
        #expect(try await other.downloadChunk(small.id) == small.body)
    }

    static func wrongBodyDigest(_ backend: any StorageBackend) async throws {
        let chunk = TestSealing.chunk(Data("sealed, then sent with the wrong digest".utf8))
        let wrongDigest = ChunkUpload(digest: chunk.id, bytes: chunk.body, bodyDigest: SHA256Digest(hashing: Data("another body".utf8)))
        let refused = await expectSyncError(.chunkDigestMismatch) { try await backend.uploadChunks([wrongDigest]) }
        #expect(refused?.digest == chunk.id)
        // The digest names the body as it was sealed (and no promise says the bytes were checked).
        var changed = ChunkUpload(digest: chunk.id, bytes: chunk.body, bodyDigest: chunk.bodyDigest)
        changed.bytes[changed.bytes.startIndex + 20] ^= 0x01
        await expectSyncError(.chunkDigestMismatch) { try await backend.uploadChunks([changed]) }
        // Without its body digest it is a plain chunk whose bytes do not hash to its digest.
        await expectSyncError(.chunkDigestMismatch) { try await backend.uploadChunk(chunk.id, bytes: chunk.body) }
        #expect(try await backend.missingChunks([chunk.id]) == [chunk.id], "nothing refused is stored")
        #expect(try await backend.usage().chunkCount == 0)

        try await backend.uploadChunks([ChunkUpload(sealed: chunk)])
        #expect(try await backend.downloadChunk(chunk.id) == chunk.body)
    }

    static func damagedAtRest(_ fixture: BackendFixture) async throws {
        let backend = fixture.backend
        let chunk = TestSealing.chunk(Data(SeededRandom(seed: 73).bytesArray(3_000)))
        let missing = await expectSyncError(.chunkNotFound) { try await backend.downloadChunk(chunk.id) }
        #expect(missing?.digest == chunk.id)
        try await backend.uploadChunks([ChunkUpload(sealed: chunk)])
        try await fixture.corruptChunk(chunk.id)
        #expect(try await backend.missingChunks([chunk.id]).isEmpty, "a damaged chunk is still stored")
        let corrupt = await expectSyncError(.chunkCorrupt) { try await backend.downloadChunk(chunk.id) }
        #expect(corrupt?.digest == chunk.id)
        await expectSyncError(.chunkCorrupt) { try await backend.downloadChunks([chunk.id]) }
    }

    static func keptWhileReferenced(_ fixture: BackendFixture) async throws {
        let backend = fixture.backend
        try await backend.createZone(zone)
        // One small file (its sealed chunk named by the record) and one large one (a
        // manifest tree of plain nodes over sealed chunks).
        let small = Data("the minutes, sealed\n".utf8)
        let large = Data(SeededRandom(seed: 74).bytesArray(3 << 20))
        var saved: [(record: Record, content: Data, stored: [SHA256Digest])] = []
        for (path, content) in [("minutes.md", small), ("scan.pdf", large)] {
            let (record, uploads) = TestSealing.document(path, content: content)
            try await backend.uploadChunks(uploads)
            saved.append((try await backend.save(record), content, uploads.map(\.digest)))
        }
        #expect(saved[1].record.asset?.depth == 1, "the large file has a manifest tree")
        let stray = TestSealing.chunk(Data("sealed, uploaded, never named".utf8))
        try await backend.uploadChunks([ChunkUpload(sealed: stray)])

        try await fixture.collectGarbage()
        let named = saved.flatMap(\.stored)
        #expect(try await backend.missingChunks(named).isEmpty, "chunks and nodes of saved sealed records are kept")
        #expect(try await backend.missingChunks([stray.id]) == [stray.id], "a sealed chunk nothing names is swept")
        for (record, content, stored) in saved {
            let fetched = try #require(try await backend.fetchRecords([record.id])[record.id])
            let opened = try fetched.opened(with: TestSealing.keyring)
            let bodies = try await backend.downloadChunks(stored)
            #expect(try TestSealing.keyring.openAsset(try #require(opened.record.asset), zone: zone, stored: bodies) == content)
        }

        _ = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: saved.map { RecordDeletion(id: $0.record.id, device: "laptop") }))
        #expect(try await backend.purgeDeleted(in: zone, ids: nil) == saved.count)
        try await fixture.collectGarbage()
        #expect(Set(try await backend.missingChunks(named)) == Set(named), "once nothing names them, they are swept")
        #expect(try await backend.usage().chunkCount == 0)
    }
}
