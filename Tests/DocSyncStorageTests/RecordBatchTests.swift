import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Testing

@Suite struct RecordBatchTests {
    let zone = ZoneID("Z")

    @Test(arguments: [(0, 0, [Int]()), (400, 0, [400]), (401, 0, [400, 1]), (399, 2, [400, 1]), (1000, 250, [400, 400, 400, 50])])
    func splitsIntoPiecesOfAtMost400(saves: Int, deletions: Int, expected: [Int]) {
        let batch = RecordBatch(zone: zone, saves: (0..<saves).map { TestRecords.folder(zone, "f\($0)") },
                                deletions: (0..<deletions).map { RecordDeletion(id: RecordID(zone: zone, recordName: "d\($0)")) },
                                atomic: true)
        let pieces = batch.split()
        #expect(pieces.map(\.itemCount) == (expected.isEmpty ? [0] : expected))
        #expect(pieces.allSatisfy { $0.atomic && $0.zone == zone })
        #expect(pieces.flatMap(\.saves) == batch.saves)
        #expect(pieces.flatMap(\.deletions) == batch.deletions)
    }

    @Test func partialFailureListsEveryFailedItem() {
        let a = RecordID(zone: zone, recordName: "a"), b = RecordID(zone: zone, recordName: "b")
        #expect(ModifyResult(deleted: [a]).partialFailure == nil)
        let failed = ModifyResult(deleted: [a], failed: [b: SyncError(.invalidArguments, "bad")])
        #expect(failed.partialFailure?.code == .partialFailure)
        #expect(failed.partialFailure?.itemErrors?[b]?.code == .invalidArguments)
    }
}
