import DocSyncControl
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// Every `docs-status` call as a real process against a scripted daemon: the request sent,
/// the human table, the `--json` schema, the exit code.
@Suite struct DocsStatusCallsTests {
    typealias FailureCode = ControlResponse.FailureCode

    // MARK: ls

    @Test func lsSendsAbsolutePathsAndPrintsATable() async throws {
        let handler = ScriptedHandler { _ in .items(items: Fixtures.items) }
        let running = try RunningServer(handler: handler)
        let (directory, cwd) = try workingDirectory()
        let result = try await docsStatus(["ls", "sub/../report.pdf", ".", "./a//b/", "/abs/x/../y", "--socket", running.socketPath], in: directory.path)
        #expect(result.status == 0, "\(result.errors)")
        #expect(handler.requests.value == [.list(paths: ["\(cwd)/report.pdf", cwd, "\(cwd)/a/b", "/abs/y"])])
        let text = result.output
        #expect(hasRow(text, ["STATUS", "SIZE", "MODIFIED", "PATH"]))
        #expect(hasRow(text, ["✓ current", "1.2 MB", "2026-09-21 14:13", "Documents/report.pdf"]))
        #expect(hasRow(text, ["↑ 42%", "40 MB", "2026-09-21 14:13", "Documents/big.iso"]))
        #expect(hasRow(text, ["✓ current", "-", "2026-09-21 14:13", "Documents/Reports/"]))
        #expect(hasRow(text, ["☁ not downloaded", "700 MB", "2026-09-21 14:13", "Documents/movie.mkv"]))
        #expect(hasRow(text, ["↓ 17%", "2 KB", "2026-09-21 14:13", "Documents/notes.txt"]))
        #expect(hasRow(text, ["! error", "10 B", "2026-09-21 14:13", "Documents/broken.txt"]))
        #expect(hasRow(text, ["⚠ conflict", "5 KB", "2026-09-21 14:13", "Documents/paper.tex"]))
        #expect(text.contains("\nDocuments/broken.txt: upload: quota exceeded: not uploaded\n"))
        #expect(hasNoEscapes(text))
        // The columns line up: every row's PATH starts where the header's does.
        let lines = text.split(separator: "\n").prefix(Fixtures.items.count + 1).map { Array(String($0)) }
        let column = try #require(lines.first.flatMap { header in header.indices.first { header[$0...].starts(with: "PATH") } })
        for line in lines.dropFirst() {
            #expect(line.last != " ")
            #expect(line.count > column && line[column...].starts(with: "Documents/"), "\(String(line))")
        }
        try await running.stop()
    }

    @Test func lsWithoutPathsListsEveryFolderAndJsonRoundTrips() async throws {
        let handler = ScriptedHandler { _ in .items(items: Fixtures.items) }
        let running = try RunningServer(handler: handler)
        let result = try await docsStatus(["ls", "--json", "--socket", running.socketPath])
        #expect(result.status == 0, "\(result.errors)")
        #expect(handler.requests.value == [.list(paths: [])])
        #expect(try decodeJSON([ItemStatus].self, result.output) == Fixtures.items)
        #expect(result.output.contains(#""percentUploaded" : 42.7"#))
        #expect(result.output.contains(#""modified" : "2026-09-21T14:13:20.000Z""#))
        // Sorted keys: "downloadingError" before "downloadingStatus" before "folder"…
        let keys = ["downloadingError", "downloadingStatus", "folder", "hasUnresolvedConflicts", "isDownloading", "isUploaded", "isUploading", "kind", "modified", "name", "path", "percentDownloaded", "percentUploaded", "size", "uploadingError"]
        let failing = try #require(result.output.range(of: #""uploadingError" : "quota"#))
        let object = String(result.output[..<failing.upperBound].suffix(from: result.output[..<failing.upperBound].range(of: "{", options: .backwards)!.lowerBound))
        // An error that is not there is left out (downloadingError here); the rest are all present, in order.
        let positions = keys.map { object.range(of: "\"\($0)\"")?.lowerBound }
        #expect(positions.filter { $0 == nil }.count == 1 && positions[0] == nil)
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
        try await running.stop()
    }

    @Test func lsOfAPathOutsideEveryFolderExitsFour() async throws {
        let handler = ScriptedHandler { _ in .failure(code: FailureCode.notFound, message: "/etc is not inside a synced folder") }
        let running = try RunningServer(handler: handler)
        let result = try await docsStatus(["ls", "/etc", "--socket", running.socketPath])
        #expect(result.status == 4)
        #expect(result.errors == "docs-status: /etc is not inside a synced folder\n")
        #expect(result.output.isEmpty)
        let json = try await docsStatus(["ls", "/etc", "--json", "--socket", running.socketPath])
        #expect(json.status == 4)
        let report = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: [String: String]]
        #expect(report?["error"]?["code"] == FailureCode.notFound)
        try await running.stop()
    }

    @Test func emptyAnswersSaySo() async throws {
        let handler = ScriptedHandler { request in
            switch request {
            case .errors: .problems(problems: [])
            case .versions: .versions(versions: [])
            case .download: .actions(outcomes: [])
            default: .items(items: [])
            }
        }
        let running = try RunningServer(handler: handler)
        let socket = ["--socket", running.socketPath]
        #expect(try await docsStatus(["ls"] + socket).output == "no items\n")
        #expect(try await docsStatus(["query", "size > 1"] + socket).output == "no matches\n")
        #expect(try await docsStatus(["conflicts"] + socket).output == "no conflicts\n")
        #expect(try await docsStatus(["errors"] + socket).output == "no problems\n")
        #expect(try await docsStatus(["versions", "/x/gone.txt"] + socket).output == "no versions kept of /x/gone.txt\n")
        let download = try await docsStatus(["download", "--where", "size > 1"] + socket)
        #expect(download.status == 0 && download.output == "nothing to do: no item matched\n")
        for call in [["ls"], ["query", "size > 1"], ["conflicts"], ["errors"], ["versions", "/x"]] {
            let json = try await docsStatus(call + ["--json"] + socket)
            #expect(json.status == 0, "\(call)")
            #expect((try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [Any])?.isEmpty == true, "\(call): \(json.output)")
        }
        try await running.stop()
    }

    // MARK: query

    @Test func queryPrintsTheMatchesInBothForms() async throws {
        let handler = ScriptedHandler { _ in .items(items: [Fixtures.current, Fixtures.uploading]) }
        let running = try RunningServer(handler: handler)
        let predicate = "name LIKE[c] '*.PDF' OR isUploading == YES"
        let result = try await docsStatus(["query", predicate, "--socket", running.socketPath])
        #expect(result.status == 0, "\(result.errors)")
        #expect(handler.requests.value == [.query(predicate: predicate, watch: false)])
        #expect(hasRow(result.output, ["✓ current", "1.2 MB", "2026-09-21 14:13", "Documents/report.pdf"]))
        #expect(hasRow(result.output, ["↑ 42%", "40 MB", "2026-09-21 14:13", "Documents/big.iso"]))
        #expect(result.output.split(separator: "\n").count == 3)
        let json = try await docsStatus(["query", predicate, "--json", "--socket", running.socketPath])
        #expect(try decodeJSON([ItemStatus].self, json.output) == [Fixtures.current, Fixtures.uploading])
        try await running.stop()
    }

    @Test func aBadPredicateExitsTwoWithThePosition() async throws {
        let message = "bad predicate at 12: expected a value after '=='"
        let handler = ScriptedHandler { _ in .failure(code: FailureCode.badPredicate, message: message) }
        let running = try RunningServer(handler: handler)
        let result = try await docsStatus(["query", "size > 1 AND ==", "--socket", running.socketPath])
        #expect(result.status == 2)
        #expect(result.errors == "docs-status: \(message)\n")
        #expect(result.output.isEmpty)
        let json = try await docsStatus(["query", "size > 1 AND ==", "--json", "--socket", running.socketPath])
        #expect(json.status == 2)
        let report = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: [String: String]]
        #expect(report?["error"] == ["code": FailureCode.badPredicate, "message": message])
        // download/evict --where take the same predicates and the same exit code.
        let download = try await docsStatus(["download", "--where", "size >", "--socket", running.socketPath])
        #expect(download.status == 2 && download.errors.contains("at 12"))
        try await running.stop()
    }

    // MARK: conflicts, errors

    @Test func conflictsListsTheItemsAndTheirCopies() async throws {
        let handler = ScriptedHandler { _ in .items(items: [Fixtures.conflicted, Fixtures.copy]) }
        let running = try RunningServer(handler: handler)
        let result = try await docsStatus(["conflicts", "--socket", running.socketPath])
        #expect(result.status == 0, "\(result.errors)")
        #expect(handler.requests.value == [.conflicts])
        #expect(hasRow(result.output, ["⚠ conflict", "5 KB", "2026-09-21 14:13", "Documents/paper.tex"]))
        #expect(hasRow(result.output, ["✓ current", "4 KB", "2026-09-21 14:13", "Documents/paper (conflict desktop 2026-09-21 14.13.20).tex"]))
        let json = try await docsStatus(["conflicts", "--json", "--socket", running.socketPath])
        #expect(try decodeJSON([ItemStatus].self, json.output) == [Fixtures.conflicted, Fixtures.copy])
        try await running.stop()
    }

    @Test func errorsListsEachProblem() async throws {
        let handler = ScriptedHandler { _ in .problems(problems: Fixtures.problems) }
        let running = try RunningServer(handler: handler)
        let result = try await docsStatus(["errors", "--socket", running.socketPath])
        #expect(result.status == 0, "\(result.errors)")
        #expect(handler.requests.value == [.errors])
        #expect(hasRow(result.output, ["PATH", "PROBLEM"]))
        #expect(hasRow(result.output, ["Documents/broken.txt", "quota exceeded: not uploaded"]))
        #expect(hasRow(result.output, ["Pictures", "folder is not readable: permission denied"]))
        #expect(hasNoEscapes(result.output))
        let json = try await docsStatus(["errors", "--json", "--socket", running.socketPath])
        #expect(try decodeJSON([ProblemEntry].self, json.output) == Fixtures.problems)
        try await running.stop()
    }

    // MARK: download, evict, restore

    @Test func downloadByPathAndPredicate() async throws {
        let outcomes = [
            ActionOutcome(folder: "Documents", path: "movie.mkv", done: true),
            ActionOutcome(folder: "Documents", path: "report.pdf", done: true, message: "already downloaded"),
        ]
        let handler = ScriptedHandler { _ in .actions(outcomes: outcomes) }
        let running = try RunningServer(handler: handler)
        let (directory, cwd) = try workingDirectory()
        let result = try await docsStatus(["download", "movie.mkv", "../x/report.pdf", "--where", "size > 1000000", "--socket", running.socketPath], in: directory.path)
        #expect(result.status == 0, "\(result.errors)")
        let parent = (cwd as NSString).deletingLastPathComponent
        #expect(handler.requests.value == [.download(paths: ["\(cwd)/movie.mkv", "\(parent)/x/report.pdf"], predicate: "size > 1000000")])
        #expect(hasRow(result.output, ["RESULT", "PATH", "NOTE"]))
        #expect(hasRow(result.output, ["✓ done", "Documents/movie.mkv"]))
        #expect(hasRow(result.output, ["✓ done", "Documents/report.pdf", "already downloaded"]))
        #expect(result.errors.isEmpty)
        let json = try await docsStatus(["download", "--where", "kind == 'Document'", "--json", "--socket", running.socketPath])
        #expect(json.status == 0)
        #expect(handler.requests.value.last == .download(paths: [], predicate: "kind == 'Document'"))
        #expect(try decodeJSON([ActionOutcome].self, json.output) == outcomes)
        try await running.stop()
    }

    @Test func downloadAndEvictNeedAPathOrAPredicate() async throws {
        let handler = ScriptedHandler { _ in .actions(outcomes: []) }
        let running = try RunningServer(handler: handler)
        for call in ["download", "evict"] {
            let result = try await docsStatus([call, "--socket", running.socketPath])
            #expect(result.status == 2, "\(call)")
            #expect(result.errors.contains("PATH or --where"), "\(result.errors)")
            #expect(result.output.isEmpty)
        }
        #expect(handler.requests.value.isEmpty)
        try await running.stop()
    }

    @Test func evictRefusedForOneItemExitsOneAndPrintsBoth() async throws {
        let outcomes = [
            ActionOutcome(folder: "Documents", path: "movie.mkv", done: true),
            ActionOutcome(folder: "Documents", path: "draft.txt", done: false, message: "not uploaded yet: evicting it would lose data"),
        ]
        let handler = ScriptedHandler { _ in .actions(outcomes: outcomes) }
        let running = try RunningServer(handler: handler)
        let (directory, cwd) = try workingDirectory()
        let result = try await docsStatus(["evict", "movie.mkv", "draft.txt", "--socket", running.socketPath], in: directory.path)
        #expect(result.status == 1)
        #expect(handler.requests.value == [.evict(paths: ["\(cwd)/movie.mkv", "\(cwd)/draft.txt"], predicate: nil)])
        #expect(hasRow(result.output, ["✓ done", "Documents/movie.mkv"]))
        #expect(hasRow(result.output, ["✗ failed", "Documents/draft.txt", "not uploaded yet: evicting it would lose data"]))
        #expect(result.errors == "docs-status: 1 of 2 items not done\n")
        let json = try await docsStatus(["evict", "--where", "size > 0", "--json", "--socket", running.socketPath])
        #expect(json.status == 1)
        #expect(handler.requests.value.last == .evict(paths: [], predicate: "size > 0"))
        #expect(try decodeJSON([ActionOutcome].self, json.output) == outcomes)
        try await running.stop()
    }

    @Test func restoreTheNewestOrAGivenVersion() async throws {
        let handler = ScriptedHandler { request in
            guard case .restore(let path, _) = request, path.hasSuffix("/report.pdf") else {
                return .failure(code: FailureCode.notFound, message: "no kept version of /elsewhere/x")
            }
            return .actions(outcomes: [ActionOutcome(folder: "Documents", path: "report.pdf", done: true, message: "restored version 7")])
        }
        let running = try RunningServer(handler: handler)
        let (directory, cwd) = try workingDirectory()
        let result = try await docsStatus(["restore", "report.pdf", "--version", "7", "--socket", running.socketPath], in: directory.path)
        #expect(result.status == 0, "\(result.errors)")
        #expect(hasRow(result.output, ["✓ done", "Documents/report.pdf", "restored version 7"]))
        let newest = try await docsStatus(["restore", "./report.pdf", "--json", "--socket", running.socketPath], in: directory.path)
        #expect(newest.status == 0)
        #expect(try decodeJSON([ActionOutcome].self, newest.output).map(\.done) == [true])
        #expect(handler.requests.value == [.restore(path: "\(cwd)/report.pdf", version: 7), .restore(path: "\(cwd)/report.pdf", version: nil)])
        let missing = try await docsStatus(["restore", "/elsewhere/x", "--socket", running.socketPath])
        #expect(missing.status == 4)
        #expect(missing.errors == "docs-status: no kept version of /elsewhere/x\n")
        #expect(try await docsStatus(["restore", "x", "--version", "seven"]).status == 2)
        #expect(try await docsStatus(["restore"]).status == 2)
        try await running.stop()
    }

    // MARK: versions

    @Test func versionsListsTheVersionStore() async throws {
        let handler = ScriptedHandler { _ in .versions(versions: Fixtures.versions) }
        let running = try RunningServer(handler: handler)
        let (directory, cwd) = try workingDirectory()
        let result = try await docsStatus(["versions", "report.pdf", "--socket", running.socketPath], in: directory.path)
        #expect(result.status == 0, "\(result.errors)")
        #expect(handler.requests.value == [.versions(path: "\(cwd)/report.pdf")])
        #expect(hasRow(result.output, ["ID", "SAVED", "REASON", "DEVICE", "SIZE", "PATH"]))
        #expect(hasRow(result.output, ["12", "2026-09-21 14:13", "overwritten", "desktop", "1.1 MB", "Documents/report.pdf"]))
        #expect(hasRow(result.output, ["7", "2026-09-20 14:13", "conflict", "laptop", "900 B", "Documents/report.pdf"]))
        let json = try await docsStatus(["versions", "report.pdf", "--json", "--socket", running.socketPath], in: directory.path)
        #expect(try decodeJSON([VersionEntry].self, json.output) == Fixtures.versions)
        #expect(try await docsStatus(["versions"]).status == 2)
        try await running.stop()
    }

    // MARK: sync, overview

    @Test func syncWaitsForTheRoundAndReportsWhatIsLeft() async throws {
        let handler = ScriptedHandler { request in
            guard case .sync(let seconds) = request else { return .failure(code: "unexpected", message: "\(request)") }
            return seconds < 1 ? .failure(code: FailureCode.timeout, message: "sync not done after 0.5 s") : .status(Fixtures.status)
        }
        let running = try RunningServer(handler: handler)
        let result = try await docsStatus(["sync", "--timeout", "12", "--socket", running.socketPath])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "synced: 2 folders, still pending: 2 uploads, 1 download\n1 conflict, 0 problems: see docs-status conflicts / errors\n")
        let json = try await docsStatus(["sync", "--json", "--socket", running.socketPath])
        #expect(json.status == 0)
        #expect(try decodeJSON(DaemonStatus.self, json.output) == Fixtures.status)
        #expect(handler.requests.value == [.sync(timeoutSeconds: 12), .sync(timeoutSeconds: 300)])
        let late = try await docsStatus(["sync", "--timeout", "0.5", "--socket", running.socketPath])
        #expect(late.status == 1)
        #expect(late.errors == "docs-status: sync not done after 0.5 s\n")
        #expect(try await docsStatus(["sync", "--timeout", "soon"]).status == 2)
        try await running.stop()
    }

    static let inFlightDownload = Fixtures.item(
        "notes.txt", size: 2_000, downloadingStatus: "downloaded", isDownloading: true, percentDownloaded: 25
    )

    @Test func overviewShowsProgressAndLastSync() async throws {
        let handler = ScriptedHandler { request in
            switch request {
            case .status: .status(Fixtures.status)
            case .query(_, watch: false): .items(items: [Fixtures.uploading, Self.inFlightDownload])
            default: .failure(code: "unexpected", message: "\(request)")
            }
        }
        let running = try RunningServer(handler: handler)
        let result = try await docsStatus(["--socket", running.socketPath])
        #expect(result.status == 0, "\(result.errors)")
        #expect(handler.requests.value == [.status, .query(predicate: "isUploading == YES OR isDownloading == YES", watch: false)])
        let text = result.output
        #expect(hasRow(text, ["Documents", "syncing", "7", "2 (40 MB)", "1 (2 KB)", "1", "0", "2026-09-21 14:13:20"]))
        #expect(hasRow(text, ["Pictures", "idle", "0", "0", "0", "0", "0", "2026-09-21 11:26:40"]))
        // 42.7% of 40 MB sent out of 40,000,010 pending bytes; 25% of 2 KB received.
        #expect(text.contains("\nDocuments  ↑ [########------------] 42%  2 items, 22.9 MB left\n"), "\(text)")
        #expect(text.contains("\nDocuments  ↓ [#####---------------] 25%  1 item, 1.5 KB left"), "\(text)")
        #expect(hasNoEscapes(text))
        // --json stays the status object alone, one call.
        let json = try await docsStatus(["--json", "--socket", running.socketPath])
        #expect(try decodeJSON(DaemonStatus.self, json.output) == Fixtures.status)
        #expect(handler.requests.value.count == 3)
        try await running.stop()
    }

    @Test func overviewWithoutProgressDetailsStillSaysWhatIsLeft() async throws {
        let handler = ScriptedHandler { request in
            if case .status = request { return .status(Fixtures.status) }
            return .failure(code: FailureCode.unknownRequest, message: "older daemon")
        }
        let running = try RunningServer(handler: handler)
        let result = try await docsStatus(["status", "--socket", running.socketPath])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.errors.isEmpty)
        #expect(result.output.contains("\nDocuments  ↑ 2 items, 40 MB left\nDocuments  ↓ 1 item, 2 KB left"), "\(result.output)")
        try await running.stop()
    }

    // MARK: every call

    static let everyCall: [[String]] = [
        [], ["status"], ["ls"], ["ls", "a"], ["query", "size > 1"], ["query", "size > 1", "--watch"], ["wait"],
        ["conflicts"], ["errors"], ["download", "a"], ["evict", "--where", "size > 1"], ["sync"],
        ["versions", "a"], ["restore", "a"],
    ]

    @Test func everyCallSaysPlainlyWhenTheDaemonIsNotRunning() async throws {
        let directory = try TemporaryDirectory("ctl")
        let socket = "\(directory.path)/control.sock"
        for call in Self.everyCall {
            for json in [false, true] {
                let result = try await docsStatus(call + (json ? ["--json"] : []) + ["--socket", socket])
                #expect(result.status == 3, "\(call)")
                #expect(result.errors == "docs-status: docsyncd is not running (no daemon answers on \(socket))\n", "\(call)")
                #expect(result.output.isEmpty, "\(call)")
            }
        }
    }

    @Test func everyCallDocumentsItsExitCodes() async throws {
        for call in Self.everyCall.map({ $0.prefix(1) }) where !call.isEmpty {
            let help = try await docsStatus(["help"] + call)
            #expect(help.status == 0, "\(call)")
            // Help text is wrapped to the terminal's width: compare with runs of spaces as one.
            let text = help.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(text.contains("Exit codes: 0 ok; 1 failure"), "\(call): \(help.output)")
            #expect(text.contains("3 docsyncd is not running; 4 not found"), "\(call)")
        }
        let root = try await docsStatus(["--help"])
        for name in ["status", "ls", "query", "wait", "conflicts", "errors", "download", "evict", "sync", "versions", "restore"] {
            #expect(root.output.contains("  \(name) "), "\(name)")
        }
    }

    @Test func aFailureAnswerExitsOne() async throws {
        let handler = ScriptedHandler { _ in .failure(code: "internal", message: "index is locked") }
        let running = try RunningServer(handler: handler)
        for call in [["ls"], ["conflicts"], ["errors"], ["versions", "a"], ["download", "a"], ["evict", "a"], ["restore", "a"], ["sync"]] {
            let result = try await docsStatus(call + ["--socket", running.socketPath])
            #expect(result.status == 1, "\(call)")
            #expect(result.errors == "docs-status: index is locked\n", "\(call)")
        }
        try await running.stop()
    }
}
