#if canImport(Glibc)
import Glibc
#endif
import DocSyncControl
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// `docs-status query --watch` as a real process: the initial result, a line per change,
/// and a clean end on SIGINT or SIGTERM.
@Suite struct DocsStatusWatchTests {
    /// The initial result, then an upload finishing, a new file and a removal, an edit uploading.
    static let updates: [ItemChanges] = {
        var uploaded = Fixtures.uploading
        uploaded.isUploading = false
        uploaded.isUploaded = true
        uploaded.percentUploaded = 100
        var edited = Fixtures.current
        edited.size = 3_000_000
        edited.modified += 60
        edited.isUploaded = false
        var moving = edited
        moving.isUploading = true
        moving.percentUploaded = 33.3
        return [
            ItemChanges(initial: true, added: [Fixtures.current, Fixtures.uploading], changed: [], removed: []),
            ItemChanges(initial: false, added: [], changed: [uploaded], removed: []),
            ItemChanges(initial: false, added: [Fixtures.placeholder], changed: [], removed: [uploaded]),
            ItemChanges(initial: false, added: [], changed: [moving], removed: []),
        ]
    }()

    static let predicate = "size > 1000"

    @Test func humanWatchPrintsTheResultThenEachChangeAndEndsCleanlyOnSIGINT() async throws {
        let handler = ScriptedHandler(updates: Self.updates) { _ in .items(items: []) }
        let running = try RunningServer(handler: handler)
        let watch = try RunningDocsStatus(["query", Self.predicate, "--watch", "--socket", running.socketPath])
        #expect(await watch.waitForLines(7), "\(watch.text)\n\(watch.errorText)")
        #expect(handler.requests.value == [.query(predicate: Self.predicate, watch: true)])
        let lines = watch.lines
        #expect(lines.count == 7, "\(lines)")
        #expect(hasRow(lines.prefix(3).joined(separator: "\n"), ["STATUS", "SIZE", "MODIFIED", "PATH"]))
        #expect(hasRow(lines[1], ["✓ current", "1.2 MB", "2026-09-21 14:13", "Documents/report.pdf"]))
        #expect(hasRow(lines[2], ["↑ 42%", "40 MB", "2026-09-21 14:13", "Documents/big.iso"]))
        #expect(Array(lines.dropFirst(3)) == [
            "~ Documents/big.iso (uploaded 100%)",
            "+ Documents/movie.mkv",
            "- Documents/big.iso",
            "~ Documents/report.pdf (edited, 3 MB, uploading 33%)",
        ])
        #expect(hasNoEscapes(watch.text))

        watch.interrupt()
        #expect(await watch.exitStatus() == 0)
        #expect(watch.errorText.isEmpty, "\(watch.errorText)")
        #expect(watch.lines.count == 7, "nothing printed on the way out")
        // The connection was closed: the daemon's side of the query was cancelled.
        #expect(await eventually(timeout: patience) { handler.watchClosed.value })
        try await running.stop()
    }

    @Test func jsonWatchPrintsOneEventPerLineAndEndsCleanlyOnSIGTERM() async throws {
        let handler = ScriptedHandler(updates: Self.updates) { _ in .items(items: []) }
        let running = try RunningServer(handler: handler)
        let watch = try RunningDocsStatus(["query", Self.predicate, "--watch", "--json", "--socket", running.socketPath])
        #expect(await watch.waitForLines(6), "\(watch.text)\n\(watch.errorText)")

        struct Event: Decodable, Equatable {
            let event: String
            let item: ItemStatus
        }
        let events = try watch.lines.map { try decodeJSON(Event.self, $0) }
        let expected = [
            Event(event: "initial", item: Fixtures.current),
            Event(event: "initial", item: Fixtures.uploading),
            Event(event: "changed", item: Self.updates[1].changed[0]),
            Event(event: "added", item: Fixtures.placeholder),
            Event(event: "removed", item: Self.updates[1].changed[0]),
            Event(event: "changed", item: Self.updates[3].changed[0]),
        ]
        #expect(events == expected)
        // One object per line, keys sorted: "event" before "item", the item's keys in order.
        #expect(watch.lines[0].hasPrefix(#"{"event":"initial","item":{"downloadingStatus":"current","folder":"Documents","#), "\(watch.lines[0])")

        watch.terminate()
        #expect(await watch.exitStatus() == 0)
        #expect(watch.errorText.isEmpty, "\(watch.errorText)")
        #expect(await eventually(timeout: patience) { handler.watchClosed.value })
        try await running.stop()
    }

    @Test func anEmptyInitialResultThenChanges() async throws {
        let updates = [
            ItemChanges(initial: true, added: [], changed: [], removed: []),
            ItemChanges(initial: false, added: [Fixtures.folder], changed: [], removed: []),
        ]
        let handler = ScriptedHandler(updates: updates) { _ in .items(items: []) }
        let running = try RunningServer(handler: handler)
        let watch = try RunningDocsStatus(["query", "kind == 'Folder'", "--watch", "--socket", running.socketPath])
        #expect(await watch.waitForLines(2))
        #expect(watch.lines == ["no matches", "+ Documents/Reports/"])
        watch.interrupt()
        #expect(await watch.exitStatus() == 0)
        #expect(watch.errorText.isEmpty)
        try await running.stop()
    }

    @Test func aBadPredicateEndsTheWatchWithExitTwo() async throws {
        let message = "bad predicate at 6: unknown attribute 'sise'"
        let handler = ScriptedHandler { _ in .failure(code: ControlResponse.FailureCode.badPredicate, message: message) }
        let running = try RunningServer(handler: handler)
        let result = try await docsStatus(["query", "sise > 1", "--watch", "--socket", running.socketPath])
        #expect(result.status == 2)
        #expect(result.errors == "docs-status: \(message)\n")
        #expect(result.output.isEmpty)
        let json = try await docsStatus(["query", "sise > 1", "--watch", "--json", "--socket", running.socketPath])
        #expect(json.status == 2)
        #expect(json.output == #"{"error":{"code":"badPredicate","message":"\#(message)"}}"# + "\n")
        try await running.stop()
    }

    @Test func theDaemonEndingTheWatchExitsOne() async throws {
        let handler = ScriptedHandler(updates: Array(Self.updates.prefix(2)), endsWatch: true) { _ in .items(items: []) }
        let running = try RunningServer(handler: handler)
        let result = try await docsStatus(["query", "size > 1", "--watch", "--socket", running.socketPath])
        #expect(result.status == 1)
        #expect(result.output.split(separator: "\n").last == "~ Documents/big.iso (uploaded 100%)")
        #expect(result.errors == "docs-status: docsyncd ended the live query (it is stopping)\n")
        try await running.stop()
    }
}
