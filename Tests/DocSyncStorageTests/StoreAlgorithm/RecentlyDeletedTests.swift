import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// Recently Deleted as the store algorithm decides it for every store: listing, recovering
/// and purging, with the retention applied.
@Suite struct RecentlyDeletedAlgorithmTests {
    let zone = ZoneID("Documents")
    let now = Timestamp(nanosecondsSince1970: 1_700_000_000_000_000_000)
    let retention = StoreRetention(settings: StoreSettings(deletedRetention: 30 * 86_400))

    func entry(_ record: Record, daysAgo: Double, by device: String = "laptop") -> StoredDeletion {
        StoredDeletion(name: record.id.recordName, version: StoredVersion(changeTag: nil, seq: 3, body: CompactCoding.encode(record)),
                       deletedAt: now.subtracting(seconds: daysAgo * 86_400), deletedBy: device)
    }

    @Test func theListIsNewestFirstThenByNameAndLeavesOutWhatExpired() throws {
        let a = TestRecords.folder(zone, "a", name: "a"), b = TestRecords.folder(zone, "b", name: "b"), c = TestRecords.folder(zone, "c", name: "c")
        let old = TestRecords.folder(zone, "old", name: "old")
        let table = TableRows(deleted: ["b": entry(b, daysAgo: 1), "a": entry(a, daysAgo: 1), "c": entry(c, daysAgo: 2), "old": entry(old, daysAgo: 31)])
        let listed = try StoreAlgorithm.listDeleted(in: zone, since: nil, now: now, retention: retention, table)
        #expect(listed.map(\.record.id.recordName) == ["a", "b", "c"])
        let recent = try StoreAlgorithm.listDeleted(in: zone, since: now.subtracting(seconds: 1.5 * 86_400), now: now, retention: retention, table)
        #expect(recent.map(\.record.id.recordName) == ["a", "b"])
    }

    @Test func eachRecoveryIsDecidedOnItsOwn() throws {
        let kept = TestRecords.folder(zone, "kept", name: "kept"), expired = TestRecords.folder(zone, "expired", name: "expired")
        let live = TestRecords.folder(zone, "live", name: "live"), moved = TestRecords.folder(zone, "moved", name: "moved")
        var table = TableRows(
            live: ["live": StoredVersion(changeTag: "t", seq: 4, body: CompactCoding.encode(live))],
            deleted: ["kept": entry(kept, daysAgo: 2), "expired": entry(expired, daysAgo: 40), "moved": entry(moved, daysAgo: 1)])
        let recoveries = [DeletedRecordRecovery(id: kept.id, device: "phone"), DeletedRecordRecovery(id: expired.id, device: "phone"),
                          DeletedRecordRecovery(id: live.id, device: "phone"), DeletedRecordRecovery(id: RecordID(zone: zone, recordName: "never"), device: "phone"),
                          DeletedRecordRecovery(id: moved.id, path: RelativePath("elsewhere/moved"), device: "phone"),
                          DeletedRecordRecovery(id: kept.id, device: "phone")]
        let outcome = try StoreAlgorithm.recover(recoveries, in: zone, now: now, retention: retention, in: &table)
        #expect(outcome.value.failed[kept.id]?.code == .invalidArguments, "named twice")
        #expect(outcome.value.failed[expired.id]?.code == .unknownItem)
        #expect(outcome.value.failed[live.id]?.code == .serverRecordChanged)
        #expect(outcome.value.failed[RecordID(zone: zone, recordName: "never")]?.code == .unknownItem)
        #expect(outcome.value.saved[moved.id]?.path == RelativePath("elsewhere/moved"))
        #expect(outcome.value.saved[moved.id]?.lastModifiedBy == "phone")
        let writes = try #require(table.written.first)
        #expect(writes.saves.map(\.name) == ["moved"] && writes.leaveRecentlyDeleted == ["moved"] && writes.replaced.isEmpty)
    }

    @Test func purgingNamesOnlyWhatRecentlyDeletedHolds() throws {
        let a = TestRecords.folder(zone, "a", name: "a")
        var table = TableRows(deleted: ["a": entry(a, daysAgo: 1)])
        let outcome = try StoreAlgorithm.purge([a.id, RecordID(zone: zone, recordName: "absent"), RecordID(zone: ZoneID("Other"), recordName: "a")],
                                               in: zone, now: now, in: &table)
        #expect(outcome.value == 1 && outcome.wrote && !outcome.announces)
        #expect(table.written.first?.purged == ["a"])
        var nothing = TableRows()
        #expect(try StoreAlgorithm.purge(nil, in: zone, now: now, in: &nothing).value == 0)
        #expect(nothing.written.isEmpty)
    }
}
