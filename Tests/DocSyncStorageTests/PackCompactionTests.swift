import DocSyncCore
@testable import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Synchronization
import Testing

/// Packs that are mostly garbage are rewritten, and readers — in this process or with a
/// store of their own, as another process has — follow their chunks to the new pack.
@Suite struct PackCompactionTests {
    let directory: TemporaryDirectory
    let zone = ZoneID("Z")
    static let options = LocalBackend.Options(settings: StoreSettings(deletedRetention: 0, collectionInterval: 0, collectionGrace: 0), collectsOnSchedule: false)

    init() throws { directory = try TemporaryDirectory("docsync-compaction") }

    var packFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path + "/packs")) ?? []).filter { $0.hasSuffix(".pack") }.sorted()
    }

    /// One upload of `count` small files (one pack), of which the first `kept` are saved as records.
    func storeOnePack(_ backend: LocalBackend, count: Int, kept: Int, seed: UInt64) async throws -> [PreparedAsset] {
        let assets = (0 ..< count).map { PreparedAsset(seed: seed + UInt64($0), size: 1_500) }
        try await backend.uploadChunks(assets.flatMap(\.uploads))
        let records = assets.prefix(kept).enumerated().map { $1.document(zone, "f\(seed)-\($0).bin") }
        #expect(try await backend.modifyRecords(RecordBatch(zone: zone, saves: records)).failed.isEmpty)
        return Array(assets.prefix(kept))
    }

    @Test func aMostlyGarbagePackIsRewrittenWithItsLiveChunksOnly() async throws {
        let backend = try LocalBackend(directory: directory.url, options: Self.options)
        try await backend.createZone(zone)
        let live = try await storeOnePack(backend, count: 100, kept: 20, seed: 100)
        let before = packFiles
        #expect(before.count == 1)
        let report = try await backend.collectGarbage()
        #expect(report.chunksRemoved == 80 && report.packsCompacted == 1 && report.packsRemoved == 1 && report.chunksMoved == 20)
        let after = packFiles
        #expect(after.count == 1 && after != before, "the old pack is gone, a new one holds the live chunks")
        #expect(report.packBytesAfter == 20 * 1_500 && report.packBytesBefore == 100 * 1_500)
        for asset in live { #expect(try await backend.loadAsset(asset.reference) == asset.content) }
        let again = try await backend.collectGarbage()
        #expect(again.packsCompacted == 0 && again.packsRemoved == 0 && packFiles == after, "a compacted pack stays as it is")
    }

    @Test func aSealedChunkMovesWithItsBodyDigestWhenItsPackIsCompacted() async throws {
        let backend = try LocalBackend(directory: directory.url, options: Self.options)
        try await backend.createZone(TestSealing.zone)
        let (record, uploads) = TestSealing.document("kept.bin", content: Data((0 ..< 3_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 7) }))
        let garbage = (0 ..< 30).map { TestSealing.upload(Data("garbage \($0) ".utf8) + Data(repeating: UInt8($0), count: 1_500)) }
        try await backend.uploadChunks(uploads + garbage)
        _ = try await backend.save(record)
        let report = try await backend.collectGarbage()
        #expect(report.chunksRemoved == garbage.count && report.packsCompacted == 1 && report.chunksMoved == uploads.count, "\(report)")
        for upload in uploads {
            #expect(try await backend.downloadChunk(upload.digest) == upload.bytes, "copied, verified against its body digest")
            try corruptStoredChunk(upload.digest, in: backend)
            await expectSyncError(.chunkCorrupt) { try await backend.downloadChunk(upload.digest) }
        }
    }

    @Test func aPackStillMostlyLiveIsLeftAndAnEmptyOneRemoved() async throws {
        let backend = try LocalBackend(directory: directory.url, options: Self.options)
        try await backend.createZone(zone)
        _ = try await storeOnePack(backend, count: 10, kept: 6, seed: 200)
        _ = try await storeOnePack(backend, count: 10, kept: 0, seed: 300)
        let report = try await backend.collectGarbage()
        #expect(report.packsCompacted == 0 && report.packsRemoved == 1 && packFiles.count == 1)
    }

    @Test func aReaderWithPlacesFromBeforeTheCompactionFindsTheChunksWhereTheyMoved() async throws {
        let backend = try LocalBackend(directory: directory.url, options: Self.options)
        let reader = try LocalBackend(directory: directory.url, options: Self.options)
        try await backend.createZone(zone)
        let live = try await storeOnePack(backend, count: 40, kept: 4, seed: 400)
        let digests = live.flatMap(\.digests)
        let stale = try reader.chunks.places(of: digests)
        #expect(try await backend.collectGarbage().packsCompacted == 1)
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/packs/" + stale[digests[0]]!.pack))
        let read = try reader.chunks.read(stale)
        for asset in live { for upload in asset.uploads { #expect(read[upload.digest] == upload.bytes) } }
    }

    @Test func downloadsGoOnWhileCollectionsCompactTheirPacks() async throws {
        let writer = try LocalBackend(directory: directory.url, options: Self.options)
        let reader = try LocalBackend(directory: directory.url, options: Self.options)
        try await writer.createZone(zone)
        let kept = Mutex<[PreparedAsset]>([])
        let done = Atomic<Bool>(false)
        let downloads = Task.detached {
            var rounds = 0
            while !done.load(ordering: .acquiring) || rounds == 0 {
                let assets = kept.withLock { $0 }
                let loaded = try await reader.downloadChunks(assets.flatMap(\.digests))
                for asset in assets { for upload in asset.uploads { #expect(loaded[upload.digest] == upload.bytes) } }
                rounds += 1
            }
            return rounds
        }
        var compacted = 0
        for round in 0 ..< 25 {
            let live = try await storeOnePack(writer, count: 30, kept: 6, seed: 1000 + UInt64(round) * 100)
            kept.withLock { $0 += live }
            compacted += try await writer.collectGarbage().packsCompacted
        }
        done.store(true, ordering: .releasing)
        let rounds = try await downloads.value
        #expect(compacted >= 25 && rounds > 1, "\(compacted) packs compacted while \(rounds) rounds of downloads ran")
    }

    @Test func aPackFileNobodyIndexedIsRemovedOnceItIsAnHourOld() async throws {
        let backend = try LocalBackend(directory: directory.url, options: Self.options)
        let old = directory.path + "/packs/1-leftover.pack", fresh = directory.path + "/packs/2-inflight.pack"
        for path in [old, fresh] { _ = FileManager.default.createFile(atPath: path, contents: Data(repeating: 7, count: 4096)) }
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7200)], ofItemAtPath: old)
        let report = try await backend.collectGarbage()
        #expect(report.packsRemoved == 1)
        #expect(!FileManager.default.fileExists(atPath: old) && FileManager.default.fileExists(atPath: fresh))
    }
}
