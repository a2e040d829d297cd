import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// The store algorithm's modify, case by case: what a batch does to stored records,
/// Recently Deleted and chunks, and what it answers (the same for every store).
@Suite struct ModifyTests {
    let zone = ZoneID("Documents")
    let now = Timestamp(nanosecondsSince1970: 1_700_000_000_000_000_000)

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

    /// Runs the batch over `rows`; the outcome and the one write it made, if any.
    func modify(_ batch: RecordBatch, _ rows: inout TableRows) throws -> (StoreOutcome<ModifyResult>, StoreWrites?) {
        let outcome = try StoreAlgorithm.modify(batch, failedBefore: try StoreAlgorithm.admit(batch), now: now, in: &rows)
        #expect(rows.written.count <= 1)
        #expect(outcome.wrote == !rows.written.isEmpty, "an outcome says whether it wrote")
        return (outcome, rows.written.first)
    }

    @Test func newRecordsTakeSequenceValuesInOrderAndTagsFromThem() throws {
        let a = TestRecords.folder(zone, "a"), b = TestRecords.folder(zone, "b")
        var rows = TableRows()
        let (outcome, writes) = try modify(RecordBatch(zone: zone, saves: [a, b]), &rows)
        #expect(writes?.saves.map(\.seq) == [100, 101])
        #expect(writes?.saves.map(\.changeTag) == [String(100, radix: 36), String(101, radix: 36)])
        #expect(outcome.value.saved[a.id]?.changeTag == ChangeTag(String(100, radix: 36)))
        #expect(writes?.lastSeq == 101)
        #expect(writes?.replaced.isEmpty == true && writes?.deletions.isEmpty == true)
        #expect(outcome.announces)
    }

    @Test func aSaveOnTheStoredTagReplacesAndKeepsTheOldVersion() throws {
        let a = TestRecords.folder(zone, "a")
        let old = stored(a, tag: "x1", seq: 7)
        var edit = a
        edit.changeTag = ChangeTag("x1")
        edit.path = RelativePath("b")
        var rows = TableRows(live: [a.id.recordName: old])
        let (outcome, writes) = try modify(RecordBatch(zone: zone, saves: [edit]), &rows)
        #expect(outcome.value.failed.isEmpty)
        #expect(writes?.replaced.map(\.version) == [old])
        #expect(writes?.leaveRecentlyDeleted.isEmpty == true)
        #expect(writes?.now == now)
    }

    @Test func staleAndUnknownTagsFailWithTheirOwnErrors() throws {
        let a = TestRecords.folder(zone, "a"), gone = TestRecords.folder(zone, "gone")
        var stale = a
        stale.changeTag = ChangeTag("old")
        var tagged = gone
        tagged.changeTag = ChangeTag("t")
        var rows = TableRows(live: [a.id.recordName: stored(a, tag: "new", seq: 3)])
        let (outcome, writes) = try modify(RecordBatch(zone: zone, saves: [stale, tagged]), &rows)
        #expect(outcome.value.failed[a.id]?.code == .serverRecordChanged)
        #expect(outcome.value.failed[a.id]?.serverRecord?.changeTag == ChangeTag("new"))
        #expect(outcome.value.failed[gone.id]?.code == .unknownItem)
        #expect(writes == nil && !outcome.wrote)
        // Creating what exists (no tag) is stale too.
        var again = TableRows(live: [a.id.recordName: stored(a, tag: "new", seq: 3)])
        #expect(try modify(RecordBatch(zone: zone, saves: [a]), &again).0.value.failed[a.id]?.code == .serverRecordChanged)
    }

    @Test func aSaveNamingAChunkNotStoredFailsWithItsDigest() throws {
        let chunk = SHA256Digest(hashing: Data("content".utf8))
        let record = document("doc.txt", chunk: chunk)
        var rows = TableRows()
        let missing = try modify(RecordBatch(zone: zone, saves: [record]), &rows).0
        #expect(missing.value.failed[record.id]?.code == .chunkNotFound)
        #expect(missing.value.failed[record.id]?.digest == chunk)
        var stocked = TableRows(chunks: [chunk])
        #expect(try modify(RecordBatch(zone: zone, saves: [record]), &stocked).0.value.saved[record.id] != nil)
    }

    @Test func aSaveOfARecordInRecentlyDeletedTakesItOut() throws {
        let a = TestRecords.folder(zone, "a")
        let kept = StoredVersion(changeTag: nil, seq: 5, body: CompactCoding.encode(a))
        var rows = TableRows(deleted: [a.id.recordName: StoredDeletion(name: a.id.recordName, version: kept, deletedAt: now, deletedBy: "x")])
        let writes = try modify(RecordBatch(zone: zone, saves: [a]), &rows).1
        #expect(writes?.leaveRecentlyDeleted == [a.id.recordName])
        #expect(writes?.replaced.map(\.version) == [kept])
    }

    @Test func deletionsAreIdempotentCheckTheirBaseTagAndKeepTheLastVersion() throws {
        let a = TestRecords.folder(zone, "a"), b = TestRecords.folder(zone, "b"), absent = TestRecords.folder(zone, "absent")
        let live = [a.id.recordName: stored(a, tag: "ta", seq: 1), b.id.recordName: stored(b, tag: "tb", seq: 2)]
        let batch = RecordBatch(zone: zone, deletions: [RecordDeletion(id: a.id, baseTag: ChangeTag("ta"), device: "laptop"),
                                                        RecordDeletion(id: b.id, baseTag: ChangeTag("stale")),
                                                        RecordDeletion(id: absent.id)])
        var rows = TableRows(live: live)
        let (outcome, writes) = try modify(batch, &rows)
        #expect(outcome.value.deleted == [a.id, absent.id])
        #expect(outcome.value.failed[b.id]?.code == .serverRecordChanged)
        #expect(writes?.deletions.count == 1)
        #expect(writes?.deletions.first?.kept == live[a.id.recordName])
        #expect(writes?.deletions.first?.device == "laptop")
        #expect(writes?.deletions.first?.seq == 100)
    }

    @Test func deletingOnlyWhatIsGoneWritesNothing() throws {
        var rows = TableRows()
        let (outcome, writes) = try modify(RecordBatch(zone: zone, deletions: [RecordDeletion(id: RecordID(zone: zone, recordName: "gone"))]), &rows)
        #expect(outcome.value.deleted.count == 1)
        #expect(writes == nil && !outcome.announces)
    }

    @Test func anAtomicBatchWithAFailureChangesNothing() throws {
        let a = TestRecords.folder(zone, "a"), fresh = TestRecords.folder(zone, "fresh")
        var stale = a
        stale.changeTag = ChangeTag("old")
        var rows = TableRows(live: [a.id.recordName: stored(a, tag: "new", seq: 1)])
        let (outcome, writes) = try modify(RecordBatch(zone: zone, saves: [fresh, stale], atomic: true), &rows)
        #expect(writes == nil && !outcome.wrote)
        #expect(outcome.value.saved.isEmpty)
        #expect(outcome.value.failed[fresh.id]?.code == .batchRequestFailed)
        #expect(outcome.value.failed[a.id]?.code == .serverRecordChanged)
    }

    @Test func validationFailuresComeFirstAndTakeNoSequenceValue() throws {
        let a = TestRecords.folder(zone, "a")
        var outside = TestRecords.folder(ZoneID("Other"), "x")
        outside.path = RelativePath("x")
        var rows = TableRows()
        let (outcome, writes) = try modify(RecordBatch(zone: zone, saves: [outside, a]), &rows)
        #expect(outcome.value.failed[outside.id]?.code == .invalidArguments)
        #expect(writes?.saves.map(\.seq) == [100])
    }

    @Test func aSenderWithTheCurrentTokenGetsTheTokenPastItsBatch() throws {
        let state = TableRows().zones["Documents"]!
        let current = StoreChangeToken(zone: "Documents", incarnation: state.incarnation, seq: state.lastSeq).token
        let stale = StoreChangeToken(zone: "Documents", incarnation: state.incarnation, seq: state.lastSeq - 1).token
        var rows = TableRows()
        let answer = try modify(RecordBatch(zone: zone, saves: [TestRecords.folder(zone, "a")], knownToken: current), &rows).0.value
        #expect(try answer.token.map { try StoreChangeToken($0).seq } == 100)
        var other = TableRows()
        #expect(try modify(RecordBatch(zone: zone, saves: [TestRecords.folder(zone, "a")], knownToken: stale), &other).0.value.token == nil)
    }

    @Test func aMissingZoneAndAnOversizedBatchAreTheCallsErrors() throws {
        var rows = TableRows(zones: [:])
        #expect { try modify(RecordBatch(zone: zone, saves: [TestRecords.folder(zone, "a")]), &rows) } throws: { ($0 as? SyncError)?.code == .zoneNotFound }
        let many = (0 ... RecordBatch.maximumItems).map { TestRecords.folder(zone, "f\($0)") }
        #expect { try StoreAlgorithm.admit(RecordBatch(zone: zone, saves: many)) } throws: { ($0 as? SyncError)?.code == .limitExceeded }
    }
}
