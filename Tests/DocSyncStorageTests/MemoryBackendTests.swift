import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// What the memory backend adds to the conformance suite: determinism on an injected
/// clock, and the hooks a simulation drives it with.
@Suite struct MemoryBackendTests {
    let zone = ZoneID("Documents")
    static let day: TimeInterval = 86_400

    /// A backend on a fresh simulated clock, keeping deleted records 30 days and collecting
    /// only when told.
    static func makeBackend(seed: UInt64 = 0) -> (MemoryBackend, SimulatedClock) {
        let clock = SimulatedClock()
        let settings = StoreSettings(deletedRetention: 30 * day, collectionInterval: 0, collectionGrace: 3600)
        return (MemoryBackend(settings: settings, seed: seed, clock: clock.reading), clock)
    }

    @Test func theSameCallsGiveTheSameAnswersByteForByte() async throws {
        let first = try await Self.scriptedSession(seed: 5)
        let second = try await Self.scriptedSession(seed: 5)
        #expect(first.count > 30, "the session answered less than it should")
        #expect(first == second)
        let otherServer = try await Self.scriptedSession(seed: 6)
        #expect(otherServer != first, "another seed names other incarnations, so other tokens")
        // Pinned: the first zone's first token, the store's first change tag, and the order
        // Recently Deleted lists in, whatever the process's hashing seed.
        var incarnations = SplitMix64(seed: 5)
        let firstIncarnation = incarnations.nextHex16()
        let token = StoreChangeToken(zone: "Documents", incarnation: firstIncarnation, seq: 1).token
        #expect(first[1] == "token " + token.opaqueValue.base64EncodedString())
        #expect(first.contains("saved r0 2 a.txt"))
        #expect(first.contains("deleted-list r1@1704067202000000000 by phone, r3@1704067202000000000 by phone, r2@1704067201000000000 by laptop"))
    }

    @Test func aCorruptedChunkIsChunkCorruptWhileStillStored() async throws {
        let (backend, _) = Self.makeBackend()
        let bytes = randomData(seed: 3, count: 5000)
        let digest = SHA256Digest(hashing: bytes)
        #expect(backend.corruptChunk(digest) == false, "nothing to corrupt before it is stored")
        try await backend.uploadChunk(digest, bytes: bytes)
        #expect(try await backend.downloadChunk(digest) == bytes)
        #expect(backend.corruptChunk(digest))
        let error = await expectSyncError(.chunkCorrupt) { try await backend.downloadChunk(digest) }
        #expect(error?.digest == digest)
        await expectSyncError(.chunkCorrupt) { try await backend.downloadChunks([digest]) }
        #expect(try await backend.missingChunks([digest]).isEmpty, "a corrupt chunk is stored, not missing")
        #expect(try await backend.usage().chunkBytes == Int64(bytes.count))
    }

    @Test func aCorruptKeptManifestNodeStopsTheCollectionBeforeItRemovesAnything() async throws {
        let (backend, clock) = Self.makeBackend()
        try await backend.createZone(zone)
        let content = randomData(seed: 4, count: 3 << 20)
        let document = try await backend.save(try await TestRecords.document(zone, "big.bin", content: content, on: backend, name: "big"))
        let asset = try #require(document.asset)
        #expect(asset.depth == 1)
        let orphan = SHA256Digest(hashing: Data("orphan".utf8))
        try await backend.uploadChunk(orphan, bytes: Data("orphan".utf8))
        clock.advance(by: .seconds(2 * 3600))
        backend.corruptChunk(asset.entries[0].digest)
        let report = backend.collectGarbage()
        #expect(report.stoppedBecause?.contains(asset.entries[0].digest.shortHex) == true)
        #expect(report.chunksRemoved == 0)
        #expect(try await backend.missingChunks([orphan]).isEmpty, "the orphan stays while what the node lists is unknown")
    }

    @Test func aForgottenStoreAnswersZoneNotFoundThenWorksAfterCreateZone() async throws {
        let (backend, _) = Self.makeBackend()
        try await backend.createZone(zone)
        let old = try await backend.save(try await TestRecords.document(zone, "a.txt", content: Data("old".utf8), on: backend, name: "a"))
        let oldToken = try await backend.fetchAllChanges(in: zone, since: nil).token
        let heard = NotificationCollector(backend.changeNotifications())

        backend.forgetEverything()
        #expect(await eventually(timeout: .seconds(60)) { heard.zones.contains(zone) }, "subscribers hear that the zone went")
        await expectSyncError(.zoneNotFound) { try await backend.fetchChanges(in: zone, since: oldToken, limit: 10) }
        await expectSyncError(.zoneNotFound) { try await backend.modifyRecords(RecordBatch(zone: zone, saves: [TestRecords.folder(zone, "x")])) }
        await expectSyncError(.zoneNotFound) { try await backend.listDeleted(in: zone, since: nil) }
        #expect(try await backend.listZones().isEmpty)
        #expect(try await backend.usage() == StorageUsage(zoneCount: 0, recordCount: 0, chunkCount: 0, chunkBytes: 0))
        #expect(try await backend.missingChunks(try #require(old.asset).entries.map(\.digest)).count == 1, "its chunks went too")

        try await backend.createZone(zone)
        await expectSyncError(.changeTokenExpired) { try await backend.fetchChanges(in: zone, since: oldToken, limit: 10) }
        let again = try await backend.save(try await TestRecords.document(zone, "a.txt", content: Data("new".utf8), on: backend, name: "a"))
        let everything = try await backend.fetchAllChanges(in: zone, since: nil)
        #expect(everything.changed == [again.id: again] && everything.deleted.isEmpty)
        #expect(try await backend.loadAsset(try #require(again.asset)) == Data("new".utf8))
    }

    @Test func deletedRecordsAndReplacedVersionsExpireWhenTheClockPassesTheRetention() async throws {
        let (backend, clock) = Self.makeBackend()
        try await backend.createZone(zone)
        let v1 = try await backend.save(try await TestRecords.document(zone, "kept.txt", content: Data("first".utf8), on: backend, name: "kept"))
        let second = try await backend.storeAsset(Data("second".utf8)).reference
        _ = try await backend.save({ var r = v1; r.asset = second; r.contentDigest = second.contentDigest; r.size = second.size; return r }())
        let doomed = try await backend.save(try await TestRecords.document(zone, "doomed.txt", content: Data("doomed".utf8), on: backend, name: "doomed"))
        _ = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: doomed.id, device: "laptop")]))
        let deletedAt = clock.now

        clock.advance(by: .seconds(30 * Self.day - 1))
        let listed = try await backend.listDeleted(in: zone, since: nil)
        #expect(listed == [DeletedRecord(record: doomed, deletedAt: deletedAt, deletedBy: "laptop")], "kept for the whole retention")
        #expect(backend.collectGarbage().chunksRemoved == 0)

        clock.advance(by: .seconds(1))
        #expect(try await backend.listDeleted(in: zone, since: nil).isEmpty, "gone at the retention")
        let late = try await backend.recoverDeleted([DeletedRecordRecovery(id: doomed.id, device: "d")], in: zone)
        #expect(late.failed[doomed.id]?.code == .unknownItem)
        let report = backend.collectGarbage()
        #expect(report.expiredDeletedRecords == 1 && report.expiredReplacedVersions == 1 && report.chunksRemoved == 2)
        #expect(try await backend.missingChunks([try #require(v1.asset).entries[0].digest, try #require(doomed.asset).entries[0].digest]).count == 2)
        #expect(try await backend.loadAsset(second) == Data("second".utf8), "the live version keeps its chunk")
    }

    @Test func tombstonesCompactedAtAChosenTimeExpireOnlyTheTokensBeforeThem() async throws {
        let (backend, clock) = Self.makeBackend()
        try await backend.createZone(zone)
        _ = try await backend.modifyRecords(RecordBatch(zone: zone, saves: ["a", "b"].map { TestRecords.folder(zone, $0, name: $0) }))
        let beforeAll = try await backend.fetchAllChanges(in: zone, since: nil).token
        _ = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: RecordID(zone: zone, recordName: "a"))]))
        let firstDeletion = clock.now
        let afterFirst = try await backend.fetchAllChanges(in: zone, since: beforeAll).token
        clock.advance(by: .seconds(60))
        _ = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: RecordID(zone: zone, recordName: "b"))]))

        #expect(backend.compactTombstones(deletedThrough: firstDeletion) == 1)
        await expectSyncError(.changeTokenExpired) { try await backend.fetchChanges(in: zone, since: beforeAll, limit: 10) }
        #expect(try await backend.fetchAllChanges(in: zone, since: afterFirst).deleted == [RecordID(zone: zone, recordName: "b")])

        // On its own, the store compacts on a write an hour after the tombstones' retention.
        clock.advance(by: .seconds(91 * Self.day))
        try await backend.createZone(ZoneID("Other"))
        await expectSyncError(.changeTokenExpired) { try await backend.fetchChanges(in: zone, since: afterFirst, limit: 10) }
    }

    @Test func aChunkNothingReferencesIsSafeForTheGracePeriodAndStoringItAgainRenewsIt() async throws {
        let (backend, clock) = Self.makeBackend()
        let bytes = Data("in flight".utf8)
        let digest = SHA256Digest(hashing: bytes)
        try await backend.uploadChunk(digest, bytes: bytes)
        clock.advance(by: .seconds(3599))
        try await backend.uploadChunk(digest, bytes: bytes)
        clock.advance(by: .seconds(3599))
        #expect(backend.collectGarbage().chunksRemoved == 0)
        clock.advance(by: .seconds(1))
        #expect(backend.collectGarbage().chunksRemoved == 1)
        await expectSyncError(.chunkNotFound) { try await backend.downloadChunk(digest) }
    }

    @Test func aSubscriberThatDoesNotKeepUpHearsOfEveryZoneInOneNotification() async throws {
        let (backend, _) = Self.makeBackend()
        let stream = backend.changeNotifications()
        let zones = ["A", "B", "C"].map { ZoneID($0) }
        for zone in zones { try await backend.createZone(zone) }
        let first = await withTaskGroup(of: Set<ZoneID>?.self) { group in
            group.addTask {
                var iterator = stream.makeAsyncIterator()
                return await iterator.next()?.zones
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))  // the deadline: the stream answers at once or never
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        #expect(first == Set(zones))
    }

    @Test func anUploadPastTheChunkByteLimitIsRefusedWholeUntilSpaceIsFreed() async throws {
        let (backend, clock) = Self.makeBackend()
        backend.chunkByteLimit = 10
        let small = [Data("12345".utf8), Data("67890".utf8), Data("x".utf8)].map { ChunkUpload(digest: SHA256Digest(hashing: $0), bytes: $0) }
        try await backend.uploadChunks(Array(small.prefix(2)))
        let error = await expectSyncError(.quotaExceeded) { try await backend.uploadChunks([small[2]]) }
        #expect(error?.quota == AccountQuota(usedBytes: 10, quotaBytes: 10))
        try await backend.uploadChunks([small[0]])  // stored already: nothing added
        clock.advance(by: .seconds(2 * 3600))
        #expect(backend.collectGarbage().chunksRemoved == 2)
        try await backend.uploadChunks([small[2]])
    }

    /// A fixed session of calls on a fresh backend, written down answer by answer in a
    /// canonical form (dictionaries sorted): what two runs must agree on.
    static func scriptedSession(seed: UInt64) async throws -> [String] {
        let (backend, clock) = makeBackend(seed: seed)
        let zone = ZoneID("Documents")
        var log = Transcript()
        try await backend.createZone(zone)
        log.note("zones", try await backend.listZones().map(\.name).joined(separator: ","))
        log.note(try await backend.fetchChanges(in: zone, since: nil, limit: 10).token)
        var saves = [try await TestRecords.document(zone, "a.txt", content: randomData(seed: 1, count: 300_000), on: backend, name: "r0")]
        saves += (1 ... 6).map { TestRecords.folder(zone, "dir\($0)", name: "r\($0)") }
        let start = try await backend.fetchChanges(in: zone, since: nil, limit: 10).token
        let first = try await backend.modifyRecords(RecordBatch(zone: zone, saves: saves, knownToken: start))
        log.note(first)
        clock.advance(by: .seconds(1))
        var edit = try #require(first.saved[RecordID(zone: zone, recordName: "r1")])
        edit.path = RelativePath("renamed")
        log.note(try await backend.modifyRecords(RecordBatch(zone: zone, saves: [edit, saves[2]], atomic: true)))
        log.note(try await backend.modifyRecords(RecordBatch(zone: zone, saves: [edit], deletions: [RecordDeletion(id: saves[2].id, device: "laptop")])))
        clock.advance(by: .seconds(1))
        log.note(try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [saves[3], saves[1]].map { RecordDeletion(id: $0.id, device: "phone") })))
        log.note("deleted-list", try await backend.listDeleted(in: zone, since: nil)
            .map { "\($0.record.id.recordName)@\($0.deletedAt.nanosecondsSince1970) by \($0.deletedBy)" }.joined(separator: ", "))
        log.note(try await backend.recoverDeleted([DeletedRecordRecovery(id: saves[3].id, path: RelativePath("back"), device: "desk")], in: zone))
        var token: ChangeToken?
        repeat {
            let page = try await backend.fetchChanges(in: zone, since: token, limit: 3)
            log.note(page)
            token = page.token
            if !page.moreComing { break }
        } while true
        clock.advance(by: .seconds(31 * day))
        log.note("gc", "\(backend.collectGarbage())")
        let usage = try await backend.usage()
        log.note("usage", "\(usage)")
        backend.forgetEverything()
        try await backend.createZone(zone)
        log.note(try await backend.fetchChanges(in: zone, since: nil, limit: 10))
        return log.lines
    }
}

/// Answers written down one per line, in a form that does not depend on hashing order.
struct Transcript {
    var lines: [String] = []

    mutating func note(_ label: String, _ text: String) { lines.append("\(label) \(text)") }

    mutating func note(_ token: ChangeToken) { note("token", token.description) }

    mutating func note(_ result: ModifyResult) {
        for (id, record) in result.saved.sorted(by: { $0.key < $1.key }) { note("saved", "\(id.recordName) \(record.changeTag!) \(record.path)") }
        for id in result.deleted.sorted() { note("deleted", id.recordName) }
        for (id, error) in result.failed.sorted(by: { $0.key < $1.key }) { note("failed", "\(id.recordName) \(error)") }
        note("result-token", result.token?.description ?? "none")
    }

    mutating func note(_ page: ChangeSet) {
        note("page", page.changed.map { "\($0.id.recordName)=\($0.changeTag!)" }.joined(separator: ",")
            + " deleted " + page.deleted.map(\.recordName).joined(separator: ",") + " more \(page.moreComing)")
        note(page.token)
    }
}

/// `count` bytes of a generator seeded with `seed`.
func randomData(seed: UInt64, count: Int) -> Data {
    var random = SeededRandom(seed: seed)
    return Data(random.bytes(count))
}

extension SplitMix64 {
    /// The next value as 16 hexadecimal digits.
    mutating func nextHex16() -> String {
        let value = String(next(), radix: 16)
        return String(repeating: "0", count: 16 - value.count) + value
    }
}
