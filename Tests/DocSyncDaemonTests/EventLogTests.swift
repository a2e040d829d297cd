import DocSyncCore
@testable import DocSyncDaemon
import DocSyncTestSupport
import Foundation
import Testing

/// The daemon's event stream (SPEC §15): numbered across restarts, the last ones kept, a
/// gap said out loud; and the events two status snapshots imply.
struct EventLogTests {
    @Test func idsStrictlyIncreaseAcrossReopeningAndAGapNamesTheFirstKept() throws {
        let directory = try TemporaryDirectory("events")
        let url = directory.url.appendingPathComponent("events.sqlite")
        var first = try EventLog(url: url)
        let numbered = try first.append([.init(kind: .started, message: "a"), .init(kind: .folderState, folder: "Docs", message: "b")])
        #expect(numbered.map(\.id) == [1, 2])
        first = try EventLog(url: url)  // a restart
        let next = try first.append([.init(kind: .stopped, message: "c")])
        #expect(next.map(\.id) == [3])
        #expect(try first.events(after: 1).map(\.id) == [2, 3])
        #expect(try first.events(after: 0).map(\.message) == ["a", "b", "c"])
        #expect(first.lastID() == 3)

        // More than are kept: the oldest go, the numbering goes on, and a reader behind gets a gap.
        let many = (0 ..< Int(EventLog.kept) + 5).map { FolderStatusEvents.Draft(kind: .problem, folder: "Docs", path: "f\($0)", message: "m") }
        try first.append(many)
        let reopened = try EventLog(url: url)
        let behind = try reopened.events(after: 2, limit: 3)
        let gap = try #require(behind.first)
        #expect(gap.kind == .gap && gap.firstAvailable == 3 + 5 + 1, "\(gap)")
        #expect(behind.dropFirst().map(\.id) == [9, 10, 11])
        #expect(try reopened.events(after: 8, limit: 1).map(\.kind) == [.problem], "no gap for a reader that is not behind")
        #expect(try reopened.append([.init(kind: .stopped, message: "z")]).map(\.id) == [3 + EventLog.kept + 5 + 1])
    }

    @Test func liveListenersGetEachAppendedEvent() async throws {
        let directory = try TemporaryDirectory("events")
        let log = try EventLog(url: directory.url.appendingPathComponent("events.sqlite"))
        let live = log.live()
        try log.append([.init(kind: .started, message: "one"), .init(kind: .stopped, message: "two")])
        var iterator = live.makeAsyncIterator()
        #expect(await iterator.next()?.message == "one")
        #expect(await iterator.next()?.message == "two")
    }

    static func folder(_ state: FolderState, message: String? = nil, problems: [ItemProblem] = [], conflicts: Int = 0, pending: Int = 0) -> FolderStatus {
        FolderStatus(id: "Docs", path: "/home/ada/Docs", state: state, message: message, items: 10, pendingUploads: pending, conflicts: conflicts, problems: problems)
    }

    @Test(arguments: [
        // previous, current, expected kinds
        ([], [folder(.scanning)], [DaemonEvent.Kind.folderState]),
        ([folder(.idle)], [folder(.idle)], []),
        ([folder(.idle)], [folder(.syncing, pending: 3)], [.folderState]),
        ([folder(.syncing, pending: 3)], [folder(.idle)], [.folderState, .synced]),
        ([folder(.syncing, message: "a", pending: 3)], [folder(.syncing, message: "b", pending: 2)], []),  // progress is not an event
        ([folder(.error, message: "a")], [folder(.error, message: "b")], [.folderState]),
        ([folder(.idle)], [folder(.idle, problems: [ItemProblem(path: "big.iso", message: "too large")])], [.problem]),
        ([folder(.idle, problems: [ItemProblem(path: "big.iso", message: "too large")])], [folder(.idle)], [.problemCleared]),
        ([folder(.idle, conflicts: 1)], [folder(.idle, conflicts: 2)], [.conflicts]),
    ])
    func snapshotsImplyEvents(previous: [FolderStatus], current: [FolderStatus], expected: [DaemonEvent.Kind]) {
        #expect(FolderStatusEvents.changes(from: previous, to: current).map(\.kind) == expected)
    }

    @Test func manyProblemsAtOnceAreCountedNotListed() {
        let problems = (0 ..< 500).map { ItemProblem(path: "f\($0)", message: "bad name") }
        let drafts = FolderStatusEvents.changes(from: [Self.folder(.idle)], to: [Self.folder(.idle, problems: problems)])
        #expect(drafts.count == FolderStatusEvents.problemsPerSnapshot + 1)
        #expect(drafts.last?.message.hasPrefix("480 more problems") == true)
    }
}
