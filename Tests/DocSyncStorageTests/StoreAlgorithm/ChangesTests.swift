import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// Pages of changes and their tokens, decided by the store algorithm for every store.
@Suite struct ChangesTests {
    let zone = ZoneID("Documents")

    func rows(changes: Int, compactedThrough: Int64 = 0, account: Int64? = nil) -> TableRows {
        var rows = TableRows(tokenAccount: account)
        rows.zones["Documents"] = ZoneState(incarnation: "inc", lastSeq: 50, compactedThrough: compactedThrough)
        rows.changeRows = (1 ... changes).map { index in
            let record = TestRecords.folder(zone, "f\(index)", name: "r\(index)")
            return ChangeRow(name: "r\(index)", seq: Int64(index * 10), body: index % 3 == 0 ? nil : CompactCoding.encode(record))
        }
        return rows
    }

    func token(seq: Int64, zone: String = "Documents", incarnation: String = "inc", account: Int64? = nil) -> ChangeToken {
        StoreChangeToken(account: account, zone: zone, incarnation: incarnation, seq: seq).token
    }

    @Test func pagesFollowTheSequenceAndTheLastOneReachesTheZonesLastChange() throws {
        let table = rows(changes: 4)
        let first = try StoreAlgorithm.changes(in: zone, since: nil, limit: 2, table)
        #expect(first.changed.map(\.id.recordName) == ["r1", "r2"] && first.deleted.isEmpty && first.moreComing)
        #expect(try StoreChangeToken(first.token).seq == 20, "the token stands at the page's last change")
        let second = try StoreAlgorithm.changes(in: zone, since: first.token, limit: 2, table)
        #expect(second.changed.map(\.id.recordName) == ["r4"] && second.deleted.map(\.recordName) == ["r3"] && !second.moreComing)
        #expect(try StoreChangeToken(second.token).seq == 50, "the last page's token is past every change of the zone")
        let none = try StoreAlgorithm.changes(in: zone, since: second.token, limit: 2, table)
        #expect(none.changed.isEmpty && none.deleted.isEmpty && !none.moreComing)
    }

    @Test(arguments: [
        // (token's zone, incarnation, seq, account; the rows' account): expired?
        ("Documents", "inc", Int64(5), nil, nil, false),
        ("Other", "inc", Int64(5), nil, nil, true),
        ("Documents", "earlier", Int64(5), nil, nil, true),
        ("Documents", "inc", Int64(4), nil, nil, true),  // before the compacted tombstones (through 5)
        ("Documents", "inc", Int64(5), Int64(7), Int64(7), false),
        ("Documents", "inc", Int64(5), nil, Int64(7), false),  // a token of the one-user store, presented to its account after a migration
        ("Documents", "inc", Int64(5), Int64(8), Int64(7), true),
    ] as [(String, String, Int64, Int64?, Int64?, Bool)])
    func tokensOfAnotherZoneIncarnationAccountOrFromBeforeACompactionExpire(
        _ zoneName: String, _ incarnation: String, _ seq: Int64, _ tokenAccount: Int64?, _ rowsAccount: Int64?, _ expired: Bool
    ) throws {
        let table = rows(changes: 2, compactedThrough: 5, account: rowsAccount)
        let given = token(seq: seq, zone: zoneName, incarnation: incarnation, account: tokenAccount)
        if expired {
            #expect { try StoreAlgorithm.changes(in: zone, since: given, limit: 10, table) } throws: { ($0 as? SyncError)?.code == .changeTokenExpired }
        } else {
            #expect(try StoreAlgorithm.changes(in: zone, since: given, limit: 10, table).changed.count == 2)
        }
    }

    @Test func aTokenThatIsNotAStoresExpires() {
        let table = rows(changes: 1)
        #expect { try StoreAlgorithm.changes(in: zone, since: ChangeToken(opaqueValue: Data("garbage".utf8)), limit: 10, table) } throws: {
            ($0 as? SyncError)?.code == .changeTokenExpired
        }
    }

    @Test func aPageIsNeverLargerThanTheStoresLimit() throws {
        let table = rows(changes: 3)
        #expect(try StoreAlgorithm.changes(in: zone, since: nil, limit: 0, table).changed.count == 1, "at least one")
        var many = TableRows()
        many.changeRows = (1 ... StorageLimits.maximumPageSize + 5).map { ChangeRow(name: "r\($0)", seq: Int64($0), body: nil) }
        #expect(try StoreAlgorithm.changes(in: zone, since: nil, limit: 10_000, many).deleted.count == StorageLimits.maximumPageSize)
    }
}
