import DocSyncCore
import Testing

/// Decision table: which items a remote folder move carried along send their new place
/// once the fetch is applied.
@Suite struct StrandedItemsPlanTests {
    typealias Item = StrandedItemsPlanner.Item

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var item: Item
        var sent: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "its record stayed in the old folder: stranded, its new place is sent",
             item: Item(recordName: "a", change: .none, path: "new/a.txt", acknowledgedPath: "old/a.txt"), sent: true),
        Case(name: "its record followed the folder: nothing to send",
             item: Item(recordName: "a", change: .none, path: "new/a.txt", acknowledgedPath: "new/a.txt"), sent: false),
        Case(name: "changed here since: already waiting to be sent, nothing to add",
             item: Item(recordName: "a", change: .edited, path: "new/a.txt", acknowledgedPath: "old/a.txt"), sent: false),
        Case(name: "deleted here since: its deletion is sent, not a place",
             item: Item(recordName: "a", change: .deleted, path: "new/a.txt", acknowledgedPath: "old/a.txt"), sent: false),
        Case(name: "never acknowledged: already waiting to be sent as new, nothing to add",
             item: Item(recordName: "a", change: .none, path: "new/a.txt", acknowledgedPath: nil), sent: false),
        Case(name: "a path that differs only in normalization is another place",
             item: Item(recordName: "a", change: .none, path: "new/caf\u{E9}", acknowledgedPath: "new/cafe\u{301}"), sent: true),
    ]

    @Test(arguments: cases) func plan(_ row: Case) {
        #expect(StrandedItemsPlanner.plan([row.item]) == (row.sent ? ["a"] : []), "\(row.name)")
    }

    @Test func keepsTheOrderGiven() {
        let items = ["c", "a", "b"].map { Item(recordName: $0, change: .none, path: RelativePath("new/\($0)"), acknowledgedPath: RelativePath("old/\($0)")) }
        #expect(StrandedItemsPlanner.plan(items) == ["c", "a", "b"])
    }
}
