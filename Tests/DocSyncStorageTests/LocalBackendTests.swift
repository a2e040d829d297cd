import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// Behaviours of the embedded backend beyond the shared conformance suite.
@Suite struct LocalBackendTests {
    /// Lives as long as the test (one suite instance per test).
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory("docsync-local") }

    @Test func opensOnlyFileURLs() throws {
        #expect(throws: SyncError.self) { try LocalBackend(url: URL(string: "http://127.0.0.1:8787")!) }
        let backend = try LocalBackend(url: URL(string: "file://\(directory.path)/store")!)
        #expect(FileManager.default.fileExists(atPath: backend.directory.appendingPathComponent("records.sqlite").path))
    }

    @Test func youngTombstonesSurviveCompaction() async throws {
        let backend = try LocalBackend(directory: directory.url)
        let zone = ZoneID("Z")
        try await backend.createZone(zone)
        let record = try await backend.save(TestRecords.folder(zone, "x"))
        let token = try await backend.fetchAllChanges(in: zone, since: nil).token
        _ = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: record.id)]))
        #expect(try backend.compactTombstones(olderThan: 3600) == 0)
        #expect(try await backend.fetchAllChanges(in: zone, since: token).deleted == [record.id])
        #expect(try backend.compactTombstones(olderThan: -1) == 1)
    }

    @Test func retentionIsAppliedWhenTheBackendOpens() async throws {
        let zone = ZoneID("Z")
        let token: ChangeToken
        do {
            let backend = try LocalBackend(directory: directory.url)
            try await backend.createZone(zone)
            let record = try await backend.save(TestRecords.folder(zone, "x"))
            token = try await backend.fetchAllChanges(in: zone, since: nil).token
            _ = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: record.id)]))
        }
        let reopened = try LocalBackend(directory: directory.url, options: .init(tombstoneRetention: -1))
        await expectSyncError(.changeTokenExpired) { try await reopened.fetchChanges(in: zone, since: token, limit: 10) }
    }

    @Test func foreignTokensAreExpiredNotCrashes() async throws {
        let backend = try LocalBackend(directory: directory.url)
        let zone = ZoneID("Z")
        try await backend.createZone(zone)
        let garbage = ChangeToken(opaqueValue: Data("not a token".utf8))
        await expectSyncError(.changeTokenExpired) { try await backend.fetchChanges(in: zone, since: garbage, limit: 10) }
    }

    @Test func aBatchOfChunksIsOnePackAndABadBatchStoresNothing() async throws {
        let backend = try LocalBackend(directory: directory.url)
        var random = SeededRandom(seed: 3)
        let pieces = (0..<20).map { _ in Data(random.bytes(5_000)) }
        let uploads = pieces.map { ChunkUpload(digest: SHA256Digest(hashing: $0), bytes: $0) }
        try await backend.uploadChunks(uploads)
        let packs = directory.url.appendingPathComponent("packs")
        #expect(try FileManager.default.contentsOfDirectory(atPath: packs.path).count == 1, "one pack file for the batch")
        #expect(try await backend.missingChunks(uploads.map(\.digest)).isEmpty)
        for upload in uploads.prefix(3) { #expect(try await backend.downloadChunk(upload.digest) == upload.bytes) }

        let good = Data(random.bytes(4_000)), other = Data(random.bytes(4_000))
        let bad = [ChunkUpload(digest: SHA256Digest(hashing: good), bytes: good), ChunkUpload(digest: SHA256Digest(hashing: good), bytes: other)]
        await expectSyncError(.chunkDigestMismatch) { try await backend.uploadChunks(bad) }
        #expect(try await backend.missingChunks([SHA256Digest(hashing: good)]) == [SHA256Digest(hashing: good)], "nothing of a refused batch is stored")
    }

    /// A chunk its caller marks verified is stored without being hashed again; if the promise
    /// was wrong, the chunk is refused when it is read, never served.
    @Test func aVerifiedChunkIsNotHashedOnUploadButStillCheckedWhenRead() async throws {
        let backend = try LocalBackend(directory: directory.url)
        var random = SeededRandom(seed: 5)
        let right = Data(random.bytes(3_000)), wrong = Data(random.bytes(3_000))
        let digest = SHA256Digest(hashing: right)
        await expectSyncError(.chunkDigestMismatch) { try await backend.uploadChunks([ChunkUpload(digest: digest, bytes: wrong)]) }
        try await backend.uploadChunks([ChunkUpload(digest: digest, bytes: wrong, isVerified: true)])
        #expect(try await backend.missingChunks([digest]).isEmpty)
        let refused = await expectSyncError(.chunkCorrupt) { try await backend.downloadChunk(digest) }
        #expect(refused?.digest == digest)
        await expectSyncError(.chunkCorrupt) { try await backend.downloadChunks([digest]) }
    }

    /// Chunks stored one after the other are read together and each handed out as its own
    /// bytes; a corrupt chunk inside such a run is named, and the others still read.
    @Test func adjacentChunksAreReadTogetherAndACorruptOneAmongThemIsNamed() async throws {
        let backend = try LocalBackend(directory: directory.url)
        var random = SeededRandom(seed: 8)
        // Sizes around the run limit too: a run is cut where it would pass `readRunLimit`.
        let sizes = [1, 5_000, 70_000, 3 << 20, 2 << 20, 4096, 17] + (0..<40).map { _ in Int(random.next() % 9_000) + 1 }
        let pieces = sizes.map { Data(random.bytes($0)) }
        let uploads = pieces.map { ChunkUpload(digest: SHA256Digest(hashing: $0), bytes: $0) }
        try await backend.uploadChunks(uploads)
        let all = try await backend.downloadChunks(uploads.map(\.digest).reversed())
        #expect(all.count == uploads.count)
        for upload in uploads { #expect(all[upload.digest] == upload.bytes) }

        let victim = uploads[20].digest
        try corruptStoredChunk(victim, in: backend)
        let refused = await expectSyncError(.chunkCorrupt) { try await backend.downloadChunks(uploads.map(\.digest)) }
        #expect(refused?.digest == victim)
        let others = uploads.filter { $0.digest != victim }
        let rest = try await backend.downloadChunks(others.map(\.digest))
        for upload in others { #expect(rest[upload.digest] == upload.bytes) }
    }

    @Test func aPrefixOfChunksFitsItsBudgetAndNamesTheFirstMissingOne() async throws {
        let backend = try LocalBackend(directory: directory.url)
        var random = SeededRandom(seed: 11)
        let pieces = [1, 700, 5_000, 40_000].map { Data(random.bytes($0)) }
        try await backend.uploadChunks(pieces.map { ChunkUpload(digest: SHA256Digest(hashing: $0), bytes: $0) })
        let digests = pieces.map { SHA256Digest(hashing: $0) }
        let absent = SHA256Digest(hashing: Data("never stored".utf8))
        // Each chunk costs its length plus 10: the first three fit 5,731, the fourth does not.
        let prefix = try await backend.downloadChunks(prefixOf: digests + [absent], budget: 5_731, cost: { $0 + 10 })
        #expect(prefix.map(\.digest) == Array(digests.prefix(3)))
        for (index, chunk) in prefix.enumerated() { #expect(chunk.bytes == pieces[index]) }
        // At least one, whatever the budget; a repeated digest comes back repeated.
        #expect(try await backend.downloadChunks(prefixOf: [digests[3], digests[3]], budget: 1, cost: { $0 }).map(\.digest) == [digests[3]])
        #expect(try await backend.downloadChunks(prefixOf: [digests[0], digests[0]], budget: 100, cost: { $0 }).map(\.digest) == [digests[0], digests[0]])
        let missing = await expectSyncError(.chunkNotFound) { try await backend.downloadChunks(prefixOf: [digests[0], absent], budget: 1 << 20, cost: { $0 }) }
        #expect(missing?.digest == absent)
    }

    @Test func aBatchWrittenGroupByGroupIsStoredOnlyWhenCommitted() async throws {
        let backend = try LocalBackend(directory: directory.url)
        let packs = directory.url.appendingPathComponent("packs")
        var random = SeededRandom(seed: 4)
        let uploads = (0..<30).map { _ in Data(random.bytes(3_000)) }.map { ChunkUpload(digest: SHA256Digest(hashing: $0), bytes: $0) }
        let digests = uploads.map(\.digest)
        let batch = backend.chunkBatch()
        try batch.add(Array(uploads[0..<10]))
        try batch.add(Array(uploads[5..<30]))  // overlapping: each chunk is written once
        #expect(try await backend.missingChunks(digests).count == 30, "nothing is stored before the commit")
        try batch.commit()
        #expect(try await backend.missingChunks(digests).isEmpty)
        let files = try FileManager.default.contentsOfDirectory(atPath: packs.path)
        #expect(files.count == 1, "one pack for the batch")
        let size = try FileManager.default.attributesOfItem(atPath: packs.appendingPathComponent(files[0]).path)[.size] as? Int
        #expect(size == 30 * 3_000, "no chunk written twice")
        for upload in uploads.suffix(3) { #expect(try await backend.downloadChunk(upload.digest) == upload.bytes) }
    }

    @Test func aBatchWithABadGroupLeavesNothingBehind() async throws {
        let backend = try LocalBackend(directory: directory.url)
        let packs = directory.url.appendingPathComponent("packs")
        var random = SeededRandom(seed: 5)
        let good = (0..<10).map { _ in Data(random.bytes(3_000)) }.map { ChunkUpload(digest: SHA256Digest(hashing: $0), bytes: $0) }
        let batch = backend.chunkBatch()
        try batch.add(good)
        let lie = ChunkUpload(digest: SHA256Digest(hashing: Data("claimed".utf8)), bytes: Data("other".utf8))
        let error = #expect(throws: SyncError.self) { try batch.add([lie]) }
        #expect(error?.code == .chunkDigestMismatch)
        batch.abort()
        #expect(try await backend.missingChunks(good.map(\.digest)).count == 10, "the good groups of a failed batch are not stored")
        #expect(try FileManager.default.contentsOfDirectory(atPath: packs.path).isEmpty, "its pack is removed")
        #expect(throws: SyncError.self) { try batch.add(good) }
    }

    @Test func aPackLeftUnindexedByACrashIsHarmless() async throws {
        let backend = try LocalBackend(directory: directory.url)
        let bytes = Data(repeating: 7, count: 10_000)
        let digest = SHA256Digest(hashing: bytes)
        // A crash between writing a pack and indexing it leaves a pack nobody points at.
        try bytes.write(to: directory.url.appendingPathComponent("packs/0-orphan.pack"))
        let reopened = try LocalBackend(directory: directory.url)
        #expect(try await reopened.missingChunks([digest]) == [digest])
        await expectSyncError(.chunkNotFound) { _ = try await reopened.downloadChunk(digest) }
        try await backend.uploadChunk(digest, bytes: bytes)
        #expect(try await reopened.downloadChunk(digest) == bytes)
    }

    @Test func twoBatchesHoldingOneChunkIndexItOnce() async throws {
        let first = try LocalBackend(directory: directory.url)
        let second = try LocalBackend(directory: directory.url)
        let bytes = Data(repeating: 9, count: 5_000), other = Data(repeating: 8, count: 5_000)
        let shared = ChunkUpload(digest: SHA256Digest(hashing: bytes), bytes: bytes)
        let own = ChunkUpload(digest: SHA256Digest(hashing: other), bytes: other)
        // Both find the chunk missing when it is added; the first commit stores it.
        let one = first.chunkBatch(), two = second.chunkBatch()
        try one.add([shared])
        try two.add([own, shared])
        try one.commit()
        try two.commit()
        #expect(try await first.usage().chunkCount == 2)
        #expect(try await second.usage().chunkBytes == 10_000)
        #expect(try await second.downloadChunks([shared.digest, own.digest]) == [shared.digest: bytes, own.digest: other])
    }

    @Test func concurrentUploadsOfOneChunkKeepOneCopy() async throws {
        let first = try LocalBackend(directory: directory.url)
        let second = try LocalBackend(directory: directory.url)
        let bytes = Data(repeating: 42, count: 40_000)
        let digest = SHA256Digest(hashing: bytes)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                let client = index.isMultiple(of: 2) ? first : second
                group.addTask { try await client.uploadChunk(digest, bytes: bytes) }
            }
            try await group.waitForAll()
        }
        #expect(try await first.usage().chunkCount == 1)
        #expect(try await second.downloadChunk(digest) == bytes)
    }
}
