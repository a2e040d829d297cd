@testable import DocSyncScaleOut
import DocSyncCore
import DocSyncS3
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import NIOCore
import Testing

/// The scale-out store's collection beyond what the conformance suite sees: packs left mostly
/// garbage are rewritten, objects nothing names are swept, and a reader that looked a chunk
/// up before its pack was rewritten still reads it.
@Suite struct ScaleOutCollectionTests {
    func bytes(_ count: Int, seed: UInt64) -> Data {
        var generator = SplitMix64(seed: seed)
        return Data((0 ..< count).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
    }

    @Test func aPackMostlyGarbageIsRewrittenAndItsReadersFollow() async throws {
        let storage = try await ScaleOutTestStorage.make(settings: StoreSettings(deletedRetention: 0, collectionInterval: 0, collectionGrace: 0))
        do {
            let store = try await storage.open()
            let account = try #require(try await store.accountID(named: "ana", create: true))
            let backend = store.backend(account: account)
            let zone = ZoneID("Docs")
            try await backend.createZone(zone)
            // Four chunks in one upload, so in one pack: three for the doomed file, one kept.
            let doomed = (0 ..< 3).map { bytes(100_000, seed: UInt64($0)) }, kept = bytes(100_000, seed: 99)
            let uploads = (doomed + [kept]).map { ChunkUpload(digest: SHA256Digest(hashing: $0), bytes: $0) }
            try await backend.uploadChunks(uploads)
            let objects = S3Client(configuration: storage.bucket, logger: ScaleOutTestStorage.logger)
            #expect(try await objects.listAllObjects(prefix: "packs/").map(\.size) == [400_000])
            func document(_ path: String, _ chunks: [Data]) -> Record {
                var record = TestRecords.folder(zone, path)
                let refs = chunks.map { ChunkRef(digest: SHA256Digest(hashing: $0), length: $0.count) }
                let content = chunks.reduce(Data(), +)
                record.type = .document
                record.mode = 0o644
                record.size = Int64(content.count)
                record.contentDigest = SHA256Digest(hashing: content)
                record.asset = AssetReference(depth: 0, entries: refs, chunkCount: refs.count, size: Int64(content.count), contentDigest: record.contentDigest!)
                return record
            }
            let gone = try await backend.save(document("gone.bin", doomed))
            _ = try await backend.save(document("kept.bin", [kept]))
            let before = try await backend.places(of: [SHA256Digest(hashing: kept)])
            _ = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: gone.id)]))

            let report = try await ScaleOutCollector(store: store).collect()
            #expect(report.ran && report.chunksRemoved == 3 && report.chunkBytesRemoved == 300_000)
            #expect(report.packsCompacted == 1 && report.chunksMoved == 1)
            #expect(try await objects.listAllObjects(prefix: "packs/").map(\.size) == [100_000], "one pack of the live chunk is left")
            #expect(try await backend.downloadChunk(SHA256Digest(hashing: kept)) == kept)
            // Looked up before the rewrite, read after it: the old pack is gone, the chunk is found again.
            #expect(try await backend.read(before)[SHA256Digest(hashing: kept)] == kept)
            #expect(try await backend.usage().chunkBytes == 100_000)
        } catch {
            await storage.close()
            throw error
        }
        await storage.close()
    }

    @Test func aSealedChunkMovesWithItsBodyDigestWhenItsPackIsRewritten() async throws {
        let storage = try await ScaleOutTestStorage.make(settings: StoreSettings(deletedRetention: 0, collectionInterval: 0, collectionGrace: 0))
        do {
            let store = try await storage.open()
            let account = try #require(try await store.accountID(named: "ana", create: true))
            let backend = store.backend(account: account)
            try await backend.createZone(TestSealing.zone)
            // One pack: the kept file's sealed chunks and much sealed garbage.
            let (record, uploads) = TestSealing.document("kept.bin", content: bytes(50_000, seed: 7))
            let garbage = (0 ..< 3).map { TestSealing.upload(bytes(100_000, seed: 10 + UInt64($0))) }
            try await backend.uploadChunks(uploads + garbage)
            _ = try await backend.save(record)
            let report = try await ScaleOutCollector(store: store).collect()
            #expect(report.ran && report.chunksRemoved == garbage.count && report.packsCompacted == 1 && report.chunksMoved == uploads.count, "\(report)")
            let moved = try await backend.places(of: uploads.map(\.digest))
            #expect(moved.values.allSatisfy { $0.bodyDigest != nil }, "each keeps its body digest")
            for upload in uploads {
                #expect(moved[upload.digest]?.bodyDigest == upload.bodyDigest)
                #expect(try await backend.downloadChunk(upload.digest) == upload.bytes, "copied, verified against its body digest")
            }
        } catch {
            await storage.close()
            throw error
        }
        await storage.close()
    }

    @Test func anObjectNoPackNamesIsSweptOnceOlderThanTheGracePeriod() async throws {
        let storage = try await ScaleOutTestStorage.make(settings: StoreSettings(collectionInterval: 0, collectionGrace: 0))
        do {
            let store = try await storage.open()
            let objects = S3Client(configuration: storage.bucket, logger: ScaleOutTestStorage.logger)
            // What an upload that died between its object and its rows leaves.
            try await objects.putObject("packs/1/orphan", ByteBuffer(string: "left behind"))
            try await objects.putObject("elsewhere/kept", ByteBuffer(string: "not the store's"))
            #expect(try await waitUntilPast(["packs/1/orphan", "elsewhere/kept"], in: objects))
            let report = try await ScaleOutCollector(store: store).collect()
            #expect(report.ran)
            #expect(try await objects.listAllObjects().map(\.key) == ["elsewhere/kept"])
        } catch {
            await storage.close()
            throw error
        }
        await storage.close()
    }
}
