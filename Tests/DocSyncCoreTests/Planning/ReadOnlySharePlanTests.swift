import DocSyncCore
import Foundation
import Testing

/// Decision table: what a read-only participant's device does with each kind of change
/// made on it (SPEC §11) — never a send; the shared version put back, or the item kept here.
@Suite struct ReadOnlySharePlanTests {
    typealias F = Fixture
    typealias Decision = ReadOnlySharePlanner.Decision

    static let copy = RelativePath("report (conflict bob laptop 2023-11-14 22.13.20).txt")

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var item: LocalItem
        var expected: Decision
        var testDescription: String { name }
    }

    static let shared = F.doc("A", "report.txt", "alice's")
    static let sharedFolder = F.folder("B", "notes")
    static let sharedLink = F.link("C", "latest", "report.txt")

    static let cases: [Case] = [
        Case(name: "unchanged: nothing", item: F.synced(shared), expected: .unchanged),
        Case(name: "a new file stays here", item: F.local(F.doc("D", "mine.txt", "bob's", tag: nil), .edited, ancestor: nil),
             expected: .keepLocal),
        Case(name: "a new folder stays here", item: F.local(F.folder("E", "mine", tag: nil), .edited, ancestor: nil), expected: .keepLocal),
        Case(name: "a new item deleted again: its row goes", item: F.local(F.doc("D", "mine.txt", "bob's", tag: nil), .deleted, ancestor: nil),
             expected: .putBack([.forget(item: F.name("D"))])),
        Case(name: "an edit is kept beside and the shared version written back",
             item: F.local(F.doc("A", "report.txt", "bob's edit", at: 5), .edited, ancestor: shared),
             expected: .putBack([
                 .keepConflictCopy(item: F.name("A"), at: copy, recordName: F.fresh),
                 .writeContent(item: F.name("A"), shared, keepReplacedAs: nil),
                 .settle(item: F.name("A"), as: shared),
                 .noteConflict(path: shared.path, copyPath: copy, remoteDevice: F.there, outcome: .keptBoth,
                               detail: ReadOnlySharePlanner.conflictDetail),
             ])),
        Case(name: "a link pointed elsewhere is kept beside too",
             item: F.local(F.link("C", "latest", "mine.txt"), .edited, ancestor: sharedLink),
             expected: .putBack([
                 .keepConflictCopy(item: F.name("C"), at: copy, recordName: F.fresh),
                 .writeContent(item: F.name("C"), sharedLink, keepReplacedAs: nil),
                 .settle(item: F.name("C"), as: sharedLink),
                 .noteConflict(path: sharedLink.path, copyPath: copy, remoteDevice: F.there, outcome: .keptBoth,
                               detail: ReadOnlySharePlanner.conflictDetail),
             ])),
        Case(name: "a deleted file is written back", item: F.local(shared, .deleted, ancestor: shared),
             expected: .putBack([.writeContent(item: F.name("A"), shared, keepReplacedAs: nil), .settle(item: F.name("A"), as: shared)])),
        Case(name: "a deleted folder is made again", item: F.local(sharedFolder, .deleted, ancestor: sharedFolder),
             expected: .putBack([.writeContent(item: F.name("B"), sharedFolder, keepReplacedAs: nil), .settle(item: F.name("B"), as: sharedFolder)])),
        Case(name: "a deleted placeholder is shown again", item: F.local(shared, .deleted, ancestor: shared, placeholder: true),
             expected: .putBack([.forget(item: F.name("A")), .placePlaceholder(shared)])),
        Case(name: "a renamed file moves back", item: F.local(F.doc("A", "renamed.txt", "alice's"), .edited, ancestor: shared),
             expected: .putBack([.move(item: F.name("A"), to: shared.path), .settle(item: F.name("A"), as: shared)])),
        Case(name: "a renamed folder moves back", item: F.local(F.folder("B", "my notes"), .edited, ancestor: sharedFolder),
             expected: .putBack([.move(item: F.name("B"), to: sharedFolder.path), .settle(item: F.name("B"), as: sharedFolder)])),
        Case(name: "a changed mode is set back", item: F.local(F.doc("A", "report.txt", "alice's", mode: 0o600), .edited, ancestor: shared),
             expected: .putBack([.setMetadata(item: F.name("A"), mode: shared.mode, modified: shared.modified), .settle(item: F.name("A"), as: shared)])),
        Case(name: "touched, same content: the time is set back",
             item: F.local(F.doc("A", "report.txt", "alice's", at: 9), .edited, ancestor: shared),
             expected: .putBack([.setMetadata(item: F.name("A"), mode: shared.mode, modified: shared.modified), .settle(item: F.name("A"), as: shared)])),
        Case(name: "marked changed but the same record: settled", item: F.local(shared, .edited, ancestor: shared),
             expected: .putBack([.settle(item: F.name("A"), as: shared)])),
    ]

    @Test(arguments: cases) func decision(_ row: Case) {
        #expect(ReadOnlySharePlanner.plan(row.item, conflictCopy: Self.copy, copyRecordName: F.fresh) == row.expected, "\(row.name)")
    }

    /// Whatever the change, no decision sends anything: no action the executor sends
    /// (`rebase`, `markChanged`, `detach`, `keepDeletion`, `moveAside`) is ever planned.
    @Test func noDecisionSends() {
        for row in Self.cases {
            guard case .putBack(let actions) = ReadOnlySharePlanner.plan(row.item, conflictCopy: Self.copy, copyRecordName: F.fresh) else { continue }
            for action in actions {
                switch action {
                case .rebase, .markChanged, .detach, .keepDeletion, .moveAside: Issue.record("\(row.name) plans a send: \(action)")
                default: break
                }
            }
        }
    }

    @Test func aSharedFoldersConflictCopiesNameTheAccountAndTheDevice() {
        let facts = SharedFolderFacts(role: .participant, permission: .readWrite, ownerName: "alice", accountName: "bob")
        let path = ConflictName.copyPath(for: "report.txt", device: facts.conflictLabel(device: "laptop"), time: F.time(0), timeZone: TimeZone(identifier: "UTC")!,
                                         isTaken: { _ in false })
        #expect(path.string.hasPrefix("report (conflict bob laptop "), "\(path)")
        #expect(ConflictName.originalName(of: path.name) == "report.txt")
        #expect(!facts.isReadOnly)
        #expect(SharedFolderFacts(role: .participant, permission: .readOnly, ownerName: "alice", accountName: "bob").isReadOnly)
        #expect(!SharedFolderFacts.owner("alice").isReadOnly)
        let accountUnknown = SharedFolderFacts(role: .participant, permission: .readOnly, ownerName: "alice", accountName: "")
        #expect(accountUnknown.conflictLabel(device: "laptop") == "laptop", "the device alone until the account is known")
    }
}
