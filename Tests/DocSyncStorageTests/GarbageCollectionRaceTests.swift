import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Synchronization
import Testing

/// Saves and collections at once (SPEC §4a, §5 `chunkNotFound`): with a one-second grace
/// period and nothing kept past its deletion, a collection runs without pause while two
/// writers upload, save, rewrite and delete — reusing content that just became garbage,
/// large files with manifest trees among it. A writer does what the engine does: upload
/// what is missing, save, and upload again on `chunkNotFound`. No record may ever name a
/// chunk that is gone.
///
/// The grace period is what makes a writer's progress certain: a chunk it uploaded, or
/// asked about (which stores it again), stays for a second, longer than a save takes.
/// With none, a collector running back to back can sweep what a writer uploaded before
/// every one of its saves (on a loaded machine it did, 50 times in a row).
@Suite struct GarbageCollectionRaceTests {
    let zone = ZoneID("Race")
    static let settings = StoreSettings(deletedRetention: 0, collectionInterval: 0, collectionGrace: 1)
    /// The last collection's: no grace, so only what live records hold is left.
    static let finalSettings = StoreSettings(deletedRetention: 0, collectionInterval: 0, collectionGrace: 0)

    /// One writer's view: what each record it keeps holds.
    final class Ledger: Sendable {
        let contents = Mutex<[RecordID: Data]>([:])
        let chunkNotFoundRetries = Atomic<Int>(0)
    }

    @Test func savesAndCollectionsAtOnceLoseNothing() async throws {
        let directory = try TemporaryDirectory("docsync-gc-race")
        let options = LocalBackend.Options(settings: Self.settings, collectsOnSchedule: false)
        let collector = try LocalBackend(directory: directory.url, options: options)
        let writers = try (0 ..< 2).map { _ in try LocalBackend(directory: directory.url, options: options) }
        try await writers[0].createZone(zone)
        // A pool of contents the writers draw from, so that content deleted a moment ago
        // (garbage by now) is saved again.
        let pool = (0 ..< 32).map { index in PreparedAsset(seed: 1000 + UInt64(index), size: index % 8 == 0 ? 1_500_000 : 4_000 + index * 1_500) }
        #expect(pool.contains { $0.reference.depth > 0 }, "manifest trees are among the contents")

        let ledger = Ledger()
        let done = Atomic<Bool>(false)
        defer { done.store(true, ordering: .releasing) }  // the collector stops however the test ends
        let collections = Task.detached {
            var report = GarbageCollectionReport()
            while !done.load(ordering: .acquiring) {
                let one = try await collector.collectGarbage()
                #expect(one.stoppedBecause == nil)
                report.chunksRemoved += one.chunksRemoved
                report.packsCompacted += one.packsCompacted
            }
            return report
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, writer) in writers.enumerated() {
                group.addTask { try await self.write(rounds: 200, seed: UInt64(index), pool: pool, on: writer, ledger: ledger) }
            }
            try await group.waitForAll()
        }
        done.store(true, ordering: .releasing)
        let collected = try await collections.value
        #expect(collected.chunksRemoved > 0, "the collector took garbage while the writers worked")
        #expect(ledger.chunkNotFoundRetries.load(ordering: .relaxed) > 0, "saves found chunks missing and the writers uploaded them")

        // And once more after them, with no grace period.
        let finalCollector = try LocalBackend(directory: directory.url, options: LocalBackend.Options(settings: Self.finalSettings, collectsOnSchedule: false))
        try await collectFully(finalCollector)
        let live = try await collector.fetchAllChanges(in: zone, since: nil, pageSize: 1000).changed
        let expected = ledger.contents.withLock { $0 }
        #expect(Set(live.keys) == Set(expected.keys))
        for (id, record) in live {
            let content = try await collector.loadAsset(try #require(record.asset))
            #expect(content == expected[id], "\(record.path) reads back whole")
        }
        let usage = try await finalCollector.usage()
        let distinct = Set(live.values.flatMap { record in pool.first { $0.reference == record.asset }!.digests })
        #expect(usage.chunkCount == distinct.count, "only what live records hold is left: \(usage.chunkCount) chunks, \(distinct.count) referenced")
        print("race: \(collected.chunksRemoved) chunks collected and \(collected.packsCompacted) packs compacted meanwhile; \(ledger.chunkNotFoundRetries.load(ordering: .relaxed)) saves found a chunk swept and uploaded again")
    }

    /// `rounds` of: save a new record, rewrite one, delete the oldest beyond three — as the
    /// engine would.
    private func write(rounds: Int, seed: UInt64, pool: [PreparedAsset], on backend: LocalBackend, ledger: Ledger) async throws {
        var random = SeededRandom(seed: seed)
        var mine: [Record] = []
        for round in 0 ..< rounds {
            let asset = pool[Int(random.next() % UInt64(pool.count))]
            mine.append(try await save(asset.document(zone, "w\(seed)/r\(round)"), asset, trusting: random.next() % 2 == 0, on: backend, ledger: ledger))
            if round % 3 == 1, !mine.isEmpty {
                let index = Int(random.next() % UInt64(mine.count))
                let other = pool[Int(random.next() % UInt64(pool.count))]
                mine[index] = try await save(other.replacing(mine[index]), other, trusting: random.next() % 2 == 0, on: backend, ledger: ledger)
            }
            // Few records live at a time: most of the pool is garbage whenever it is reused.
            while mine.count > 3 {
                let doomed = mine.removeFirst()
                // It lived through several collections: it must read back whole.
                let content = try await backend.loadAsset(try #require(doomed.asset))
                #expect(content == ledger.contents.withLock { $0[doomed.id] }, "\(doomed.path) reads back whole before its deletion")
                let result = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: doomed.id, device: "w\(seed)")]))
                #expect(result.deleted == [doomed.id])
                ledger.contents.withLock { $0[doomed.id] = nil }
            }
        }
    }

    /// Uploads what `asset` lacks and saves `record`, uploading again as long as the save
    /// finds a chunk swept meanwhile. A `trusting` writer first saves without asking, as
    /// one that believes the store still holds what it saw there earlier: the save finds
    /// the chunks the collector took since (or never had) and the writer uploads them.
    private func save(_ record: Record, _ asset: PreparedAsset, trusting: Bool, on backend: LocalBackend, ledger: Ledger) async throws -> Record {
        for attempt in 0 ..< 50 {
            if attempt > 0 || !trusting {
                let missing = try await backend.missingChunks(asset.digests)
                try await backend.uploadChunks(asset.uploads.filter { missing.contains($0.digest) })
            }
            let result = try await backend.modifyRecords(RecordBatch(zone: zone, saves: [record]))
            if let saved = result.saved[record.id] {
                ledger.contents.withLock { $0[record.id] = asset.content }
                return saved
            }
            let error = try #require(result.failed[record.id])
            guard error.code == .chunkNotFound else { throw error }
            ledger.chunkNotFoundRetries.add(1, ordering: .relaxed)
        }
        throw SyncError(.internalError, "\(record.path) could not be saved in 50 attempts")
    }
}
