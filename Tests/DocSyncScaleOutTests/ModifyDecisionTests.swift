@testable import DocSyncScaleOut
import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import NIOCore
import Testing

/// The scale-out store's modify algorithm as a pure decision: what a batch does to stored
/// records, Recently Deleted and chunks, case by case.
@Suite struct ModifyDecisionTests {
    let zone = ZoneID("Documents")

    func stored(_ record: Record, tag: String, seq: Int64) -> StoredVersion {
        var tagged = record
        tagged.changeTag = ChangeTag(tag)
        return StoredVersion(changeTag: tag, seq: seq, body: CompactCoding.encode(tagged))
    }

    func document(_ path: String, chunk: SHA256Digest) -> Record {
        var record = TestRecords.folder(zone, path)
        record.type = .document
        record.mode = 0o644
        record.size = 10
        record.asset = AssetReference(depth: 0, entries: [ChunkRef(digest: chunk, length: 10)], chunkCount: 1, size: 10, contentDigest: chunk)
        record.contentDigest = chunk
        return record
    }

    func decide(_ batch: RecordBatch, existing: [String: StoredVersion] = [:], deleted: [String: StoredVersion] = [:],
                chunks: Set<SHA256Digest> = [], firstSeq: Int64 = 100) throws -> ModifyDecision {
        try ModifyDecision.decide(batch, failedBefore: batch.itemsFailingValidation, existing: existing, recentlyDeleted: deleted,
                                  storedChunks: chunks, firstSeq: firstSeq)
    }

    @Test func newRecordsTakeSequenceValuesInOrderAndTagsFromThem() throws {
        let a = TestRecords.folder(zone, "a"), b = TestRecords.folder(zone, "b")
        let decision = try decide(RecordBatch(zone: zone, saves: [a, b]))
        #expect(decision.saves.map(\.seq) == [100, 101])
        #expect(decision.saves.map(\.changeTag) == [String(100, radix: 36), String(101, radix: 36)])
        #expect(decision.result.saved[a.id]?.changeTag == ChangeTag(String(100, radix: 36)))
        #expect(decision.lastSeq == 101)
        #expect(decision.replaced.isEmpty && decision.deletions.isEmpty)
    }

    @Test func aSaveOnTheStoredTagReplacesAndKeepsTheOldVersion() throws {
        let a = TestRecords.folder(zone, "a")
        let old = stored(a, tag: "x1", seq: 7)
        var edit = a
        edit.changeTag = ChangeTag("x1")
        edit.path = RelativePath("b")
        let decision = try decide(RecordBatch(zone: zone, saves: [edit]), existing: [a.id.recordName: old])
        #expect(decision.result.failed.isEmpty)
        #expect(decision.replaced.map(\.version) == [old])
        #expect(decision.takenFromRecentlyDeleted.isEmpty)
    }

    @Test func staleAndUnknownTagsFailWithTheirOwnErrors() throws {
        let a = TestRecords.folder(zone, "a"), gone = TestRecords.folder(zone, "gone")
        var stale = a
        stale.changeTag = ChangeTag("old")
        var tagged = gone
        tagged.changeTag = ChangeTag("t")
        let untagged = a  // creating what exists is stale too
        let decision = try decide(RecordBatch(zone: zone, saves: [stale, tagged]), existing: [a.id.recordName: stored(a, tag: "new", seq: 3)])
        #expect(decision.result.failed[a.id]?.code == .serverRecordChanged)
        #expect(decision.result.failed[a.id]?.serverRecord?.changeTag == ChangeTag("new"))
        #expect(decision.result.failed[gone.id]?.code == .unknownItem)
        #expect(decision.lastSeq == nil && decision.saves.isEmpty)
        let again = try decide(RecordBatch(zone: zone, saves: [untagged]), existing: [a.id.recordName: stored(a, tag: "new", seq: 3)])
        #expect(again.result.failed[a.id]?.code == .serverRecordChanged)
    }

    @Test func aSaveNamingAChunkNotStoredFailsWithItsDigest() throws {
        let chunk = SHA256Digest(hashing: Data("content".utf8))
        let record = document("doc.txt", chunk: chunk)
        let missing = try decide(RecordBatch(zone: zone, saves: [record]))
        #expect(missing.result.failed[record.id]?.code == .chunkNotFound)
        #expect(missing.result.failed[record.id]?.digest == chunk)
        let present = try decide(RecordBatch(zone: zone, saves: [record]), chunks: [chunk])
        #expect(present.result.saved[record.id] != nil)
    }

    @Test func aSaveOfARecordInRecentlyDeletedTakesItOut() throws {
        let a = TestRecords.folder(zone, "a")
        let kept = StoredVersion(changeTag: nil, seq: 5, body: CompactCoding.encode(a))
        let decision = try decide(RecordBatch(zone: zone, saves: [a]), deleted: [a.id.recordName: kept])
        #expect(decision.takenFromRecentlyDeleted == [a.id.recordName])
        #expect(decision.replaced.map(\.version) == [kept])
    }

    @Test func deletionsAreIdempotentCheckTheirBaseTagAndKeepTheLastVersion() throws {
        let a = TestRecords.folder(zone, "a"), b = TestRecords.folder(zone, "b"), absent = TestRecords.folder(zone, "absent")
        let existing = [a.id.recordName: stored(a, tag: "ta", seq: 1), b.id.recordName: stored(b, tag: "tb", seq: 2)]
        let batch = RecordBatch(zone: zone, deletions: [RecordDeletion(id: a.id, baseTag: ChangeTag("ta"), device: "laptop"),
                                                        RecordDeletion(id: b.id, baseTag: ChangeTag("stale")),
                                                        RecordDeletion(id: absent.id)])
        let decision = try decide(batch, existing: existing)
        #expect(decision.result.deleted == [a.id, absent.id])
        #expect(decision.result.failed[b.id]?.code == .serverRecordChanged)
        #expect(decision.deletions.count == 1)
        #expect(decision.deletions.first?.kept == existing[a.id.recordName])
        #expect(decision.deletions.first?.device == "laptop")
        #expect(decision.deletions.first?.seq == 100)
    }

    @Test func anAtomicBatchWithAFailureChangesNothing() throws {
        let a = TestRecords.folder(zone, "a"), fresh = TestRecords.folder(zone, "fresh")
        var stale = a
        stale.changeTag = ChangeTag("old")
        let decision = try decide(RecordBatch(zone: zone, saves: [fresh, stale], atomic: true), existing: [a.id.recordName: stored(a, tag: "new", seq: 1)])
        #expect(!decision.changesSomething && decision.saves.isEmpty)
        #expect(decision.result.saved.isEmpty)
        #expect(decision.result.failed[fresh.id]?.code == .batchRequestFailed)
        #expect(decision.result.failed[a.id]?.code == .serverRecordChanged)
    }

    @Test func validationFailuresComeFirstAndTakeNoSequenceValue() throws {
        let a = TestRecords.folder(zone, "a")
        var outside = TestRecords.folder(ZoneID("Other"), "x")
        outside.path = RelativePath("x")
        let decision = try decide(RecordBatch(zone: zone, saves: [outside, a]))
        #expect(decision.result.failed[outside.id]?.code == .invalidArguments)
        #expect(decision.saves.map(\.seq) == [100])
    }
}

/// Which ranged GETs read a set of chunks.
@Suite struct PackReadPlanTests {
    func digest(_ n: Int) -> SHA256Digest { SHA256Digest(hashing: Data("\(n)".utf8)) }

    @Test(arguments: [
        // (offsets and lengths in one pack, merge gap, expected ranges)
        ([(0, 10), (10, 10), (20, 10)], Int64(0), [0 ..< 30]),
        ([(0, 10), (15, 10)], Int64(4), [0 ..< 10, 15 ..< 25]),
        ([(0, 10), (15, 10)], Int64(5), [0 ..< 25]),
        ([(100, 10), (0, 10)], Int64(0), [0 ..< 10, 100 ..< 110]),
    ] as [([(Int64, Int)], Int64, [Range<Int64>])])
    func rangesOfOnePack(_ chunks: [(Int64, Int)], gap: Int64, expected: [Range<Int64>]) {
        var places: [SHA256Digest: ScaleOutBackend.ChunkPlace] = [:]
        for (index, (offset, length)) in chunks.enumerated() {
            places[digest(index)] = ScaleOutBackend.ChunkPlace(objectKey: "packs/1/a", offset: offset, length: length)
        }
        let plans = PackReadPlan.make(places, mergeGap: gap)
        #expect(plans.map(\.range) == expected)
        #expect(plans.flatMap(\.chunks).count == chunks.count, "every chunk is read once")
    }

    @Test func packsAreReadSeparately() {
        let places = [digest(1): ScaleOutBackend.ChunkPlace(objectKey: "packs/1/a", offset: 0, length: 5),
                      digest(2): ScaleOutBackend.ChunkPlace(objectKey: "packs/1/b", offset: 0, length: 5)]
        #expect(Set(PackReadPlan.make(places, mergeGap: 1 << 20).map(\.objectKey)) == ["packs/1/a", "packs/1/b"])
    }

    @Test func aChunkWhoseBytesDoNotMatchIsCorrupt() throws {
        let good = Data("good".utf8), other = Data("evil".utf8)
        let plan = PackReadPlan(objectKey: "k", range: 10 ..< 18, chunks: [.init(digest: SHA256Digest(hashing: good), offset: 10, length: 4),
                                                                            .init(digest: SHA256Digest(hashing: good), offset: 14, length: 4)])
        var bytes = ByteBuffer(bytes: good + other)
        #expect(throws: SyncError.self) { try plan.verifiedChunks(in: bytes) }
        bytes = ByteBuffer(bytes: good + good)
        #expect(try plan.verifiedChunks(in: bytes).values.first == good)
    }
}
