import DocSyncCore
import Testing

/// Decision tables: the order a fetched page is applied in, and which of its records are
/// plainly new (placed together, without a plan of their own).
@Suite struct RemotePagePlanTests {
    typealias F = Fixture
    typealias Facts = RemotePagePlanner.NewRecordFacts

    struct OrderCase: Sendable, CustomTestStringConvertible {
        var name: String
        var changed: [Record]
        var skipping: Set<String> = []
        var expected: [String]
        var testDescription: String { name }
    }

    static let orderCases: [OrderCase] = [
        OrderCase(name: "folders first, then documents and links",
                  changed: [F.doc("A", "a.txt", "a"), F.link("B", "b", "a.txt"), F.folder("C", "c")],
                  expected: ["C", "A", "B"]),
        OrderCase(name: "shallow before deep, folders and files alike",
                  changed: [F.doc("A", "x/y/deep.txt", "a"), F.folder("B", "x/y"), F.doc("C", "top.txt", "c"), F.folder("D", "x")],
                  expected: ["D", "B", "C", "A"]),
        OrderCase(name: "paths of one depth in byte order (NFD before NFC of the same name)",
                  changed: [F.doc("A", "caf\u{E9}.txt", "a"), F.doc("B", "cafe\u{301}.txt", "b"), F.doc("C", "Zebra.txt", "c")],
                  expected: ["C", "B", "A"]),
        OrderCase(name: "echoes and own saves are left out",
                  changed: [F.doc("A", "a.txt", "a"), F.doc("B", "b.txt", "b"), F.folder("C", "c")],
                  skipping: [F.name("A"), F.name("C")], expected: ["B"]),
        OrderCase(name: "an empty page", changed: [], expected: []),
    ]

    @Test(arguments: orderCases) func order(_ row: OrderCase) {
        #expect(RemotePagePlanner.order(row.changed, skipping: row.skipping).map(\.id.recordName) == row.expected.map(F.name), "\(row.name)")
    }

    struct DeletionCase: Sendable, CustomTestStringConvertible {
        var name: String
        var items: [(recordName: String, path: RelativePath)]
        var expected: [String]
        var testDescription: String { name }
    }

    static let deletionCases: [DeletionCase] = [
        DeletionCase(name: "deepest first: a folder after what was in it",
                     items: [("trip", "trip"), ("photo", "trip/day1/p.jpg"), ("day1", "trip/day1")], expected: ["photo", "day1", "trip"]),
        DeletionCase(name: "one depth: the page's order", items: [("b", "b.txt"), ("a", "a.txt")], expected: ["b", "a"]),
        DeletionCase(name: "nothing known: nothing", items: [], expected: []),
    ]

    @Test(arguments: deletionCases) func deletions(_ row: DeletionCase) {
        #expect(RemotePagePlanner.deletionOrder(row.items) == row.expected, "\(row.name)")
    }

    struct NewCase: Sendable, CustomTestStringConvertible {
        var name: String
        var records: [Record]
        /// Facts by letter; a record without an entry here is unknown, its path free and not ignored.
        var facts: [String: Facts] = [:]
        /// Letters of records the engine gathered no facts for.
        var unobserved: Set<String> = []
        var onDemand = false
        var expected: [String]
        var testDescription: String { name + (onDemand ? " [on demand]" : "") }
    }

    static let newCases: [NewCase] = [
        NewCase(name: "a new folder and a new document: both, in order",
                records: [F.folder("A", "docs"), F.doc("B", "docs/a.txt", "a")], expected: ["A", "B"]),
        NewCase(name: "a link takes the one-record path", records: [F.link("A", "l", "x"), F.doc("B", "b.txt", "b")], expected: ["B"]),
        NewCase(name: "two records at one path: neither",
                records: [F.folder("A", "same"), F.folder("B", "same"), F.doc("C", "c.txt", "c")], expected: ["C"]),
        NewCase(name: "two names that differ only in normalization are two paths (in byte order)",
                records: [F.doc("A", "caf\u{E9}.txt", "a"), F.doc("B", "cafe\u{301}.txt", "b")], expected: ["B", "A"]),
        NewCase(name: "on demand: documents become placeholders one by one, folders go together",
                records: [F.folder("A", "docs"), F.doc("B", "docs/a.txt", "a")], onDemand: true, expected: ["A"]),
        NewCase(name: "an ignored path: not placed", records: [F.doc("A", "a.tmp", "a"), F.doc("B", "b.txt", "b")],
                facts: ["A": Facts(ignored: true)], expected: ["B"]),
        NewCase(name: "a record the index knows (an update): not new", records: [F.doc("A", "a.txt", "a")],
                facts: ["A": Facts(known: true)], expected: []),
        NewCase(name: "a live item at its path: not new (a collision, planned alone)", records: [F.folder("A", "docs")],
                facts: ["A": Facts(pathTaken: true)], expected: []),
        NewCase(name: "no facts gathered: not new", records: [F.doc("A", "a.txt", "a"), F.doc("B", "b.txt", "b")],
                unobserved: ["A"], expected: ["B"]),
    ]

    @Test(arguments: newCases) func plainlyNew(_ row: NewCase) {
        var facts: [String: Facts] = [:]
        for record in row.records {
            let letter = String(record.id.recordName.dropFirst(4).prefix(1))
            if !row.unobserved.contains(letter) { facts[record.id.recordName] = row.facts[letter] ?? Facts() }
        }
        let ordered = RemotePagePlanner.order(row.records, skipping: [])
        let asked = Set(RemotePagePlanner.factsNeeded(ordered, onDemand: row.onDemand).map(\.id.recordName))
        #expect(Set(row.expected.map(F.name)).isSubset(of: asked), "\(row.name): facts are gathered for every record placed")
        let found = RemotePagePlanner.plainlyNew(ordered, facts: facts, onDemand: row.onDemand).map(\.id.recordName)
        #expect(found == row.expected.map(F.name), "\(row.name)")
    }
}
