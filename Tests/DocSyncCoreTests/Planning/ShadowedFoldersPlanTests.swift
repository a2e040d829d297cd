import DocSyncCore
import Testing

/// Decision table: folder records waiting for their path (two devices made a folder at one
/// path while apart), once a fetch is applied.
@Suite struct ShadowedFoldersPlanTests {
    typealias F = Fixture
    typealias Waiting = ShadowedFoldersPlanner.Waiting

    static let other = F.folder("B", "Projects")

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var waiting: Waiting
        var expected: [ShadowedFoldersPlanner.Decision]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "this device's folder still holds the path: it keeps waiting",
             waiting: Waiting(recordName: other.id.recordName, record: other, pathFree: false, known: false), expected: []),
        Case(name: "the path is free (this device's folder moved or went): placed",
             waiting: Waiting(recordName: other.id.recordName, record: other, pathFree: true, known: false), expected: [.place(other)]),
        Case(name: "it became an item here meanwhile: it waits no more",
             waiting: Waiting(recordName: other.id.recordName, record: other, pathFree: true, known: true),
             expected: [.forget(recordName: other.id.recordName)]),
        Case(name: "known, and the path still held: it waits no more",
             waiting: Waiting(recordName: other.id.recordName, record: other, pathFree: false, known: true),
             expected: [.forget(recordName: other.id.recordName)]),
        Case(name: "what was remembered cannot be read: forgotten",
             waiting: Waiting(recordName: other.id.recordName, record: nil, pathFree: false, known: false),
             expected: [.forget(recordName: other.id.recordName)]),
        Case(name: "unreadable, and its path free: forgotten, not placed",
             waiting: Waiting(recordName: other.id.recordName, record: nil, pathFree: true, known: false),
             expected: [.forget(recordName: other.id.recordName)]),
    ]

    @Test(arguments: cases) func plan(_ row: Case) {
        #expect(ShadowedFoldersPlanner.plan([row.waiting]) == row.expected, "\(row.name)")
    }

    @Test func decisionsKeepTheOrderGiven() {
        let placed = F.folder("C", "Archive")
        let waiting = [
            Waiting(recordName: F.name("D"), record: F.folder("D", "Held"), pathFree: false, known: false),
            Waiting(recordName: placed.id.recordName, record: placed, pathFree: true, known: false),
            Waiting(recordName: Self.other.id.recordName, record: Self.other, pathFree: false, known: true),
        ]
        #expect(ShadowedFoldersPlanner.plan(waiting) == [.place(placed), .forget(recordName: Self.other.id.recordName)])
    }
}
