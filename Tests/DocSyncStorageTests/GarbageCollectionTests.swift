import DocSyncCore
@testable import DocSyncStorage
import DocSyncTestSupport
import Foundation
import GRDB
import Testing

/// The embedded store's collection beyond the conformance suite: the grace period, manifest
/// nodes in flight, the lock, the counters, the schedule, a purge.
@Suite struct GarbageCollectionTests {
    let directory: TemporaryDirectory
    let zone = ZoneID("Z")

    init() throws { directory = try TemporaryDirectory("docsync-gc") }

    func open(grace: TimeInterval = 3600, retention: TimeInterval = 3600, interval: TimeInterval = 0) throws -> LocalBackend {
        try LocalBackend(directory: directory.url, options: .init(
            settings: StoreSettings(deletedRetention: retention, collectionInterval: interval, collectionGrace: grace), collectsOnSchedule: interval > 0))
    }

    /// Makes every stored chunk `seconds` older, as if it had been stored that long ago.
    func age(by seconds: TimeInterval, _ digests: [SHA256Digest]? = nil) throws {
        let database = try DatabaseQueue(path: directory.path + "/records.sqlite")
        try database.write { db in
            if let digests {
                for digest in digests {
                    try db.execute(sql: "UPDATE chunk SET storedAt = storedAt - ? WHERE digest = ?", arguments: [Int64(seconds * 1000), Data(digest.bytes)])
                }
            } else {
                try db.execute(sql: "UPDATE chunk SET storedAt = storedAt - ?", arguments: [Int64(seconds * 1000)])
            }
        }
    }

    @Test func unreferencedChunksAreKeptForTheGracePeriodAndStoringAgainRestartsIt() async throws {
        let backend = try open(grace: 3600)
        let asset = PreparedAsset(seed: 1, size: 50_000)
        try await backend.uploadChunks(asset.uploads)
        var report = try await backend.collectGarbage()
        #expect(report.ran && report.chunksRemoved == 0, "an hour's grace covers an upload in flight")
        try age(by: 7200)
        try await backend.uploadChunks([asset.uploads[0]])  // stored again: young again
        report = try await backend.collectGarbage()
        #expect(report.chunksRemoved == asset.uploads.count - 1)
        #expect(try await backend.missingChunks(asset.digests) == Set(asset.digests.dropFirst()))
        #expect(try await backend.usage().chunkCount == 1)
    }

    @Test func aSaveNamingASweptChunkIsChunkNotFoundUntilItIsUploadedAgain() async throws {
        let backend = try open(grace: 0)
        try await backend.createZone(zone)
        let asset = PreparedAsset(seed: 2, size: 30_000)
        try await backend.uploadChunks(asset.uploads)
        try await collectFully(backend)
        let record = asset.document(zone, "late.bin")
        let refused = try await backend.modifyRecords(RecordBatch(zone: zone, saves: [record]))
        #expect(refused.failed[record.id]?.code == .chunkNotFound)
        #expect(refused.failed[record.id]?.digest.map(asset.digests.contains) == true)
        try await backend.uploadChunks(asset.uploads)
        #expect(try await backend.modifyRecords(RecordBatch(zone: zone, saves: [record])).saved[record.id] != nil)
    }

    @Test func aManifestNodeStoredWithinTheGraceKeepsTheOldChunksItLists() async throws {
        let backend = try open(grace: 3600)
        let large = PreparedAsset(seed: 3, size: 3 << 20)
        #expect(large.reference.depth == 1)
        let nodeDigests = Set(large.reference.entries.map(\.digest))
        let data = large.uploads.filter { !nodeDigests.contains($0.digest) }
        let nodes = large.uploads.filter { nodeDigests.contains($0.digest) }
        // Old data chunks nothing references (a file deleted long ago), then new nodes over
        // them: an upload whose record is not saved yet.
        try await backend.uploadChunks(data)
        try age(by: 7200)
        try await backend.uploadChunks(nodes)
        var report = try await backend.collectGarbage()
        #expect(report.chunksRemoved == 0, "the young nodes keep what they list")
        try age(by: 7200)
        report = try await backend.collectGarbage()
        #expect(report.chunksRemoved == large.uploads.count)
        #expect(try await backend.usage().chunkCount == 0)
    }

    @Test func oneCollectorAtATime() async throws {
        let backend = try open(grace: 0)
        try await backend.uploadChunks(PreparedAsset(seed: 4, size: 10_000).uploads)
        do {
            let held = try #require(try CollectionLock.take(in: directory.url))
            #expect(try CollectionLock.take(in: directory.url) == nil, "the lock excludes another taker in the same process")
            let skipped = try await backend.collectGarbage()
            #expect(!skipped.ran && skipped.chunksRemoved == 0)
            #expect(try await backend.usage().chunkCount > 0)
            withExtendedLifetime(held) {}
        }
        // Released: the next collection runs. (A process another test forks at that moment
        // holds a copy of the lock's descriptor until it execs, so it is asked again for a
        // while rather than once.)
        var ran = try await backend.collectGarbage()
        let deadline = ContinuousClock.now + .seconds(10)
        while !ran.ran, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
            ran = try await backend.collectGarbage()
        }
        #expect(ran.ran && ran.chunksRemoved > 0)
    }

    @Test func usageIsKeptAsCountersThatMatchTheChunks() async throws {
        let backend = try open(grace: 0)
        try await backend.createZone(zone)
        let kept = PreparedAsset(seed: 5, size: 200_000)
        try await backend.uploadChunks(kept.uploads)
        _ = try await backend.save(kept.document(zone, "kept.bin"))
        try await backend.uploadChunks(PreparedAsset(seed: 6, size: 100_000).uploads)
        try await backend.uploadChunks(kept.uploads)  // stored again: not counted twice
        func counted() throws -> (Int, Int64) {
            try DatabaseQueue(path: directory.path + "/records.sqlite").read { db in
                let row = try Row.fetchOne(db, sql: "SELECT COUNT(*), COALESCE(SUM(length), 0) FROM chunk")!
                return (row[0], row[1])
            }
        }
        var usage = try await backend.usage()
        var truth = try counted()
        #expect(usage.chunkCount == truth.0 && usage.chunkBytes == truth.1)
        try await collectFully(backend)
        usage = try await backend.usage()
        truth = try counted()
        #expect(usage.chunkCount == truth.0 && usage.chunkBytes == truth.1)
        #expect(usage.chunkCount == kept.uploads.count && usage.chunkBytes == Int64(kept.uploads.reduce(0) { $0 + $1.bytes.count }))
    }

    @Test func thePurgeOfRecentlyDeletedFreesItsSpaceWithoutWaitingForTheSchedule() async throws {
        let backend = try open(grace: 0)
        try await backend.createZone(zone)
        let asset = PreparedAsset(seed: 7, size: 120_000)
        try await backend.uploadChunks(asset.uploads)
        let record = try await backend.save(asset.document(zone, "big.bin"))
        _ = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: record.id, device: "d")]))
        #expect(try await backend.usage().chunkCount == asset.uploads.count)
        #expect(try await backend.purgeDeleted(in: zone, ids: nil) == 1)
        let freed = try await eventually(timeout: .seconds(20)) { try await backend.usage().chunkCount == 0 }
        #expect(freed, "a purge is followed by a collection")
    }

    @Test func theScheduleCollectsWhileTheBackendIsOpenAndEndsWithIt() async throws {
        weak var released: LocalBackend?
        do {
            let backend = try open(grace: 0, interval: 1)
            released = backend
            try await backend.uploadChunks(PreparedAsset(seed: 8, size: 40_000).uploads)
            let collected = try await eventually(timeout: .seconds(30), pollEvery: .milliseconds(50)) { try await backend.usage().chunkCount == 0 }
            #expect(collected, "the schedule (every second) collected the unreferenced chunks")
            #expect(try backend.lastCollection() != nil)
        }
        let ended = await eventually(timeout: .seconds(10)) { released == nil }
        #expect(ended, "a sleeping schedule does not keep its backend alive")
    }

    @Test func aReSavedDeletedRecordKeepsItsDeletedVersionAsReplaced() async throws {
        let backend = try open(grace: 0)
        try await backend.createZone(zone)
        let old = PreparedAsset(seed: 9, size: 60_000), new = PreparedAsset(seed: 10, size: 50_000)
        try await backend.uploadChunks(old.uploads + new.uploads)
        let record = try await backend.save(old.document(zone, "doc.bin"))
        _ = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: record.id, device: "a")]))
        var again = new.replacing(record)
        again.changeTag = nil
        _ = try await backend.save(again)  // an edit elsewhere wins over the deletion
        #expect(try await backend.listDeleted(in: zone, since: nil).isEmpty)
        try await collectFully(backend)
        #expect(try await backend.loadAsset(old.reference) == old.content, "the deleted version is kept as the replaced one")
    }

    @Test func aDeletingDeviceNameMustBeShortAndPrintable() async throws {
        let backend = try open()
        try await backend.createZone(zone)
        let a = try await backend.save(TestRecords.folder(zone, "a")), b = try await backend.save(TestRecords.folder(zone, "b"))
        let result = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [
            RecordDeletion(id: a.id, device: String(repeating: "x", count: 256)), RecordDeletion(id: b.id, device: "line\nbreak"),
        ]))
        #expect(result.failed[a.id]?.code == .invalidArguments && result.failed[b.id]?.code == .invalidArguments)
        #expect(try await backend.fetchRecords([a.id, b.id]).count == 2)
    }

    @Test func aDeletedZoneTakesItsKeptVersionsAlong() async throws {
        let backend = try open(grace: 0)
        try await backend.createZone(zone)
        let asset = PreparedAsset(seed: 11, size: 40_000)
        try await backend.uploadChunks(asset.uploads)
        let record = try await backend.save(asset.document(zone, "a.bin"))
        _ = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: record.id)]))
        try await backend.deleteZone(zone)
        try await collectFully(backend)
        #expect(try await backend.usage().chunkCount == 0)
        try await backend.createZone(zone)
        #expect(try await backend.listDeleted(in: zone, since: nil).isEmpty, "a recreated zone starts with nothing deleted")
    }
}
