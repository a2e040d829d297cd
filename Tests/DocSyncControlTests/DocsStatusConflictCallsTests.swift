import DocSyncControl
import DocSyncCore
import DocSyncPlatform
import DocSyncTestSupport
import Foundation
import Testing

/// `docs-status resolve` and `conflicts --log` as real processes against a scripted daemon:
/// the request sent, the table, the `--json` schema, the exit code.
@Suite struct DocsStatusConflictCallsTests {
    static let copy = "paper (conflict desktop 2026-09-21 14.13.20).tex"

    static let log = [
        ConflictLogEntry(time: Timestamp(Fixtures.modified), folder: "Documents", path: "paper.tex", copyPath: copy,
                         localDevice: "laptop", remoteDevice: "desktop", outcome: .resolvedRemote,
                         detail: "kept desktop's version from \(copy); the replaced one is version 7 in the version store"),
        ConflictLogEntry(time: Timestamp(Fixtures.modified - 3_600), folder: "Documents", path: "notes.md",
                         localDevice: "laptop", remoteDevice: "desktop", outcome: .merged),
        ConflictLogEntry(time: Timestamp(Fixtures.modified - 7_200), folder: "Pictures", path: "cat.jpg",
                         localDevice: "laptop", outcome: .remoteWon),
    ]

    // MARK: resolve

    @Test func resolveSendsAbsolutePathsAndTheChoiceAndReportsEachConflict() async throws {
        let handler = ScriptedHandler { _ in
            .actions(outcomes: [
                ActionOutcome(folder: "Documents", path: "paper.tex", done: true, message: "kept this device's version; x is version 7 in the version store"),
                ActionOutcome(folder: "Documents", path: "plan.txt", done: false, message: "no such item"),
            ])
        }
        let running = try RunningServer(handler: handler)
        let (directory, cwd) = try workingDirectory()
        let result = try await docsStatus(["resolve", "paper.tex", "sub/../plan.txt", "--keep", "local", "--socket", running.socketPath], in: directory.path)
        #expect(result.status == 1, "one conflict not done: \(result.errors)")
        #expect(handler.requests.value == [.resolve(paths: ["\(cwd)/paper.tex", "\(cwd)/plan.txt"], all: false, predicate: nil, keep: .local)])
        #expect(hasRow(result.output, ["RESULT", "PATH", "NOTE"]))
        #expect(hasRow(result.output, ["✓ done", "Documents/paper.tex", "kept this device's version; x is version 7 in the version store"]))
        #expect(hasRow(result.output, ["✗ failed", "Documents/plan.txt", "no such item"]))
        #expect(result.errors == "docs-status: 1 of 2 items not done\n")
        let json = try await docsStatus(["resolve", "--all", "--keep", "both", "--json", "--socket", running.socketPath])
        #expect(json.status == 1)
        #expect(handler.requests.value.last == .resolve(paths: [], all: true, predicate: nil, keep: .both))
        #expect(try decodeJSON([ActionOutcome].self, json.output).map(\.path) == ["paper.tex", "plan.txt"])
        try await running.stop()
    }

    @Test func resolveAllWhereNarrowsByAPredicateAndAnEmptyAnswerSaysSo() async throws {
        let handler = ScriptedHandler { _ in .actions(outcomes: []) }
        let running = try RunningServer(handler: handler)
        let result = try await docsStatus(["resolve", "--all", "--where", "name ENDSWITH '.tex'", "--keep", "remote", "--socket", running.socketPath])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "nothing to do: no item matched\n")
        #expect(handler.requests.value == [.resolve(paths: [], all: true, predicate: "name ENDSWITH '.tex'", keep: .remote)])
        // --where alone means every conflict it matches.
        _ = try await docsStatus(["--json", "resolve", "--where", "size > 1", "--keep", "remote", "--socket", running.socketPath])
        #expect(handler.requests.value.last == .resolve(paths: [], all: true, predicate: "size > 1", keep: .remote))
        try await running.stop()
    }

    @Test func resolveFailuresMapToExitCodes() async throws {
        let handler = ScriptedHandler { request in
            guard case .resolve(_, _, let predicate, _) = request else { return .failure(code: "unknownRequest", message: "?") }
            return predicate == nil
                ? .failure(code: ControlResponse.FailureCode.notFound, message: "/etc/x is not inside a synced folder")
                : .failure(code: ControlResponse.FailureCode.badPredicate, message: "bad predicate at 6: expected a value")
        }
        let running = try RunningServer(handler: handler)
        let outside = try await docsStatus(["resolve", "/etc/x", "--keep", "local", "--socket", running.socketPath])
        #expect(outside.status == 4 && outside.errors == "docs-status: /etc/x is not inside a synced folder\n")
        let bad = try await docsStatus(["resolve", "--all", "--where", "size >", "--keep", "local", "--json", "--socket", running.socketPath])
        #expect(bad.status == 2 && bad.errors.contains("at 6"))
        let report = try JSONSerialization.jsonObject(with: Data(bad.output.utf8)) as? [String: [String: String]]
        #expect(report?["error"]?["code"] == ControlResponse.FailureCode.badPredicate)
        try await running.stop()
    }

    @Test func resolveUsageErrorsExitTwo() async throws {
        for arguments in [["resolve", "--keep", "local"], ["resolve", "x", "--all", "--keep", "local"], ["resolve", "x"],
                          ["resolve", "x", "--keep", "mine"], ["conflicts", "--since", "2h"], ["conflicts", "--log", "--since", "yesterday"]] {
            let result = try await docsStatus(arguments + ["--socket", "/nonexistent/control.sock"])
            #expect(result.status == 2, "\(arguments): \(result.errors)")
            #expect(result.output.isEmpty)
        }
        let help = try await docsStatus(["resolve", "--help"])
        #expect(help.status == 0 && help.output.contains("local|remote|both") && help.output.contains("Exit codes"))
    }

    // MARK: conflicts --log

    @Test func theConflictLogAsATable() async throws {
        let handler = ScriptedHandler { _ in .conflictLog(entries: Self.log) }
        let running = try RunningServer(handler: handler)
        let result = try await docsStatus(["conflicts", "--log", "--socket", running.socketPath])
        #expect(result.status == 0, "\(result.errors)")
        #expect(handler.requests.value == [.conflictLog(since: nil)])
        #expect(hasRow(result.output, ["TIME", "OUTCOME", "WITH", "PATH", "COPY", "DETAIL"]))
        #expect(hasRow(result.output, ["2026-09-21 14:13:20", "resolved-remote", "desktop", "Documents/paper.tex", Self.copy,
                                       "kept desktop's version from \(Self.copy); the replaced one is version 7 in the version store"]))
        #expect(hasRow(result.output, ["2026-09-21 13:13:20", "merged", "desktop", "Documents/notes.md"]))
        #expect(hasRow(result.output, ["2026-09-21 12:13:20", "remote-won", "?", "Pictures/cat.jpg"]))
        #expect(hasNoEscapes(result.output))
        try await running.stop()
    }

    @Test func theConflictLogAsJSON() async throws {
        let handler = ScriptedHandler { _ in .conflictLog(entries: Self.log) }
        let running = try RunningServer(handler: handler)
        let result = try await docsStatus(["conflicts", "--log", "--json", "--socket", running.socketPath])
        #expect(result.status == 0, "\(result.errors)")
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: String]])
        #expect(objects.count == 3)
        #expect(objects[0] == ["time": "2026-09-21T14:13:20.000Z", "folder": "Documents", "path": "paper.tex", "copyPath": Self.copy,
                               "localDevice": "laptop", "remoteDevice": "desktop", "outcome": "resolved-remote",
                               "detail": "kept desktop's version from \(Self.copy); the replaced one is version 7 in the version store"])
        // What is not known is left out, not null.
        #expect(objects[2] == ["time": "2026-09-21T12:13:20.000Z", "folder": "Pictures", "path": "cat.jpg", "localDevice": "laptop",
                               "outcome": "remote-won"])
        #expect(result.output.contains(#""copyPath" : "paper"#) && result.output.range(of: #""copyPath""#)!.lowerBound
                    < result.output.range(of: #""detail""#)!.lowerBound, "keys sorted")
        try await running.stop()
    }

    @Test func theConflictLogSinceATime() async throws {
        let handler = ScriptedHandler { _ in .conflictLog(entries: []) }
        let running = try RunningServer(handler: handler)
        let before = Timestamp.now
        let relative = try await docsStatus(["conflicts", "--log", "--since", "2h", "--socket", running.socketPath])
        #expect(relative.status == 0 && relative.output == "no conflicts logged since 2h\n", "\(relative)")
        guard case .conflictLog(let since?) = handler.requests.value.last else {
            Issue.record("sent \(handler.requests.value)")
            return
        }
        let twoHours: Int64 = 7_200 * 1_000_000_000
        #expect(since.nanosecondsSince1970 >= before.nanosecondsSince1970 - twoHours
                && since.nanosecondsSince1970 <= Timestamp.now.nanosecondsSince1970 - twoHours)
        let absolute = try await docsStatus(["--json", "conflicts", "--log", "--since", "2026-09-21T12:00:00Z", "--socket", running.socketPath])
        let decoded = try JSONSerialization.jsonObject(with: Data(absolute.output.utf8)) as? [Any]
        #expect(absolute.status == 0 && decoded?.isEmpty == true)
        #expect(handler.requests.value.last == .conflictLog(since: Timestamp(seconds: 1_790_000_000 - 8_000, nanoseconds: 0)))
        #expect(try await docsStatus(["conflicts", "--log", "--socket", running.socketPath]).output == "no conflicts logged\n")
        try await running.stop()
    }
}
