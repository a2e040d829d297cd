import DocSyncControl
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// The calls of SPEC §4a (`deletions`, `deleted`, `recover`) and the option order of §7, as
/// real `docs-status` processes against a scripted daemon: the request sent, the output,
/// the exit code.
@Suite struct DocsStatusDeletionCallsTests {
    typealias FailureCode = ControlResponse.FailureCode

    @Test func sharedOptionsWorkBeforeOrAfterTheCall() async throws {
        let handler = ScriptedHandler { request in
            switch request {
            case .wait: .settled(Fixtures.status)
            default: .items(items: Fixtures.items)
            }
        }
        let running = try RunningServer(handler: handler)
        let socket = running.socketPath
        let before = try await docsStatus(["--socket", socket, "wait", "--timeout", "5"])
        #expect(before.status == 0, "\(before.errors)")
        let equals = try await docsStatus(["--socket=\(socket)", "--json", "wait"])
        #expect(equals.status == 0, "\(equals.errors)")
        #expect(equals.output.contains("\"folders\""), "--json before the call is taken: \(equals.output)")
        let jsonFirst = try await docsStatus(["--json", "ls", "--socket", socket])
        let jsonLast = try await docsStatus(["ls", "--json", "--socket", socket])
        #expect(jsonFirst.status == 0, "\(jsonFirst.errors)")
        #expect(jsonFirst.output == jsonLast.output)
        #expect(try ControlFraming.makeDecoder().decode([ItemStatus].self, from: Data(jsonFirst.output.utf8)) == Fixtures.items)
        // A value that looks like a call stays the option's value.
        let odd = try await docsStatus(["--socket", socket, "ls"])
        #expect(odd.status == 0, "\(odd.errors)")
        let unknown = try await docsStatus(["--bogus", "ls", "--socket", socket])
        #expect(unknown.status == 2, "an unknown option is still a usage error")
        try await running.stop()
    }

    @Test func waitExitsFiveAtOnceWhileSomethingIsHeld() async throws {
        let handler = ScriptedHandler { _ in .failure(code: FailureCode.held, message: "Documents: 120 local deletions held by the mass-delete brake") }
        let running = try RunningServer(handler: handler)
        let started = ContinuousClock.now
        let result = try await docsStatus(["wait", "--timeout", "900", "--socket", running.socketPath])
        #expect(result.status == 5)
        // The bound tells "at once" from waiting out the timeout, with room for a loaded run
        // (in full runs on two cores this test's two calls have taken 30 s and 80 s).
        #expect(ContinuousClock.now - started < .seconds(450))
        #expect(result.errors.contains("120 local deletions held"))
        let json = try await docsStatus(["wait", "--json", "--socket", running.socketPath])
        #expect(json.status == 5)
        #expect(json.output.contains("\"held\""))
        try await running.stop()
    }

    @Test func deletionsListsWhatIsHeldAndSendsTheChoice() async throws {
        let held = HeldFolder(
            folder: "Documents", path: "/home/ada/Documents",
            held: HeldDeletions(reason: "markerMissing", message: "/home/ada/Documents is not the folder that was synced", since: Fixtures.modified, items: 2),
            items: [HeldItem(folder: "Documents", path: "a.txt", kind: "Document", size: 1_200), HeldItem(folder: "Documents", path: "b", kind: "Folder", size: 0)],
            total: 2)
        let handler = ScriptedHandler { request in
            switch request {
            case .deletions(_, nil): .held(folders: [held])
            case .deletions(_, .confirm?): .actions(outcomes: [ActionOutcome(folder: "Documents", path: "a.txt", done: true, message: "deletion confirmed")])
            default: .actions(outcomes: [ActionOutcome(folder: "Documents", path: "a.txt", done: false, message: "refused: the root is missing")])
            }
        }
        let running = try RunningServer(handler: handler)
        let (directory, cwd) = try workingDirectory()
        let list = try await docsStatus(["deletions", "Documents", "--socket", running.socketPath], in: directory.path)
        #expect(list.status == 0, "\(list.errors)")
        #expect(list.output.contains("Documents: folder held (markerMissing) since 2026-09-21 14:13:20"))
        #expect(hasRow(list.output, ["Document", "1.2 KB", "/home/ada/Documents/a.txt"]))
        let json = try await docsStatus(["--json", "deletions", "--socket", running.socketPath])
        #expect(try ControlFraming.makeDecoder().decode([HeldFolder].self, from: Data(json.output.utf8)) == [held])
        let confirm = try await docsStatus(["deletions", "--confirm", "--socket", running.socketPath])
        #expect(confirm.status == 0)
        #expect(hasRow(confirm.output, ["✓ done", "Documents/a.txt", "deletion confirmed"]))
        let restore = try await docsStatus(["deletions", "--restore", "--socket", running.socketPath])
        #expect(restore.status == 1, "an item not done fails the call")
        let both = try await docsStatus(["deletions", "--restore", "--confirm", "--socket", running.socketPath])
        #expect(both.status == 2)
        #expect(handler.requests.value == [
            .deletions(folder: "\(cwd)/Documents", choice: nil), .deletions(folder: nil, choice: nil),
            .deletions(folder: nil, choice: .confirm), .deletions(folder: nil, choice: .restore),
        ])
        try await running.stop()
    }

    @Test func deletedListsRecentlyDeletedAndPurgesOnlyWhatIsNamed() async throws {
        let entry = DeletedEntry(folder: "Documents", path: "old/report.pdf", kind: "Document", size: 2_000_000, modified: Fixtures.modified,
                                 deletedAt: Fixtures.modified, deletedBy: "laptop", recordName: "r1")
        let handler = ScriptedHandler { request in
            switch request {
            case .deleted(_, purge: false): .deleted(entries: [entry])
            default: .actions(outcomes: [ActionOutcome(folder: "Documents", path: "old/report.pdf", done: true, message: "purged")])
            }
        }
        let running = try RunningServer(handler: handler)
        let socket = running.socketPath
        let list = try await docsStatus(["deleted", "--where", "deletedBy == 'laptop'", "--socket", socket])
        #expect(list.status == 0, "\(list.errors)")
        #expect(hasRow(list.output, ["2026-09-21 14:13", "laptop", "2 MB", "Documents/old/report.pdf"]))
        let json = try await docsStatus(["deleted", "--json", "--socket", socket])
        #expect(try ControlFraming.makeDecoder().decode([DeletedEntry].self, from: Data(json.output.utf8)) == [entry])
        let unnamed = try await docsStatus(["deleted", "--purge", "--socket", socket])
        #expect(unnamed.status == 2, "purging everything needs --all")
        let all = try await docsStatus(["deleted", "--purge", "--all", "--socket", socket])
        #expect(all.status == 0)
        #expect(hasRow(all.output, ["✓ done", "Documents/old/report.pdf", "purged"]))
        #expect(handler.requests.value == [
            .deleted(selection: DeletedSelection(predicate: "deletedBy == 'laptop'"), purge: false),
            .deleted(selection: DeletedSelection(), purge: false),
            .deleted(selection: DeletedSelection(), purge: true),
        ])
        try await running.stop()
    }

    @Test func recoverTakesPathsPredicatesAndTimes() async throws {
        let handler = ScriptedHandler { _ in .actions(outcomes: [ActionOutcome(folder: "Documents", path: "a.txt", done: true, message: "recovered")]) }
        let running = try RunningServer(handler: handler)
        let socket = running.socketPath
        let (directory, cwd) = try workingDirectory()
        let byPath = try await docsStatus(["recover", "a.txt", "--socket", socket], in: directory.path)
        #expect(byPath.status == 0, "\(byPath.errors)")
        #expect(hasRow(byPath.output, ["✓ done", "Documents/a.txt", "recovered"]))
        let since = try await docsStatus(["recover", "--since", "2026-09-21T14:13:20Z", "--socket", socket])
        #expect(since.status == 0, "\(since.errors)")
        let relative = try await docsStatus(["recover", "--since", "2h", "--socket", socket])
        #expect(relative.status == 0, "\(relative.errors)")
        #expect(try await docsStatus(["recover", "--socket", socket]).status == 2, "nothing named")
        #expect(try await docsStatus(["recover", "--since", "soon", "--socket", socket]).status == 2)
        let requests = handler.requests.value
        #expect(requests.count == 3)
        #expect(requests.first == .recover(selection: DeletedSelection(paths: ["\(cwd)/a.txt"])))
        #expect(requests.dropFirst().first == .recover(selection: DeletedSelection(since: Fixtures.modified)))
        if case .recover(let selection) = requests.last, let date = selection.since {
            #expect(abs(date.timeIntervalSinceNow + 7_200) < 120, "2h ago: \(date)")
        } else {
            Issue.record("no relative recover request: \(requests)")
        }
        try await running.stop()
    }
}
