import DocSyncControl
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// Every `docs-status` call as a real process against real daemons: a mirror ("alpha", with
/// a 1 MB file-size limit) and an on-demand folder ("beta") on one `file://` backend.
@Suite("docs-status against real daemons", .serialized)
struct DocsStatusSystemTests {
    let base: TemporaryDirectory
    let alpha: DaemonProcess
    let beta: DaemonProcess

    init() throws {
        base = try TemporaryDirectory("docsync-cli")
        let backend = URL(fileURLWithPath: base.url.appendingPathComponent("backend").path)
        alpha = try DaemonProcess(name: "alpha", base: base.url, backend: backend, extraArguments: ["--max-file-size", "1MB"])
        beta = try DaemonProcess(name: "beta", base: base.url, backend: backend, extraArguments: ["--mode", "on-demand"])
    }

    func call(_ arguments: [String], on daemon: DaemonProcess) async throws -> (status: Int32, output: String, errors: String) {
        try await daemon.docsStatus(arguments)
    }

    func json<T: Decodable>(_ type: T.Type, _ arguments: [String], on daemon: DaemonProcess,
                            sourceLocation: SourceLocation = #_sourceLocation) async throws -> T {
        try await daemon.docsStatusJSON(type, arguments, sourceLocation: sourceLocation)
    }

    func settle() async throws {
        #expect(try await alpha.waitSettled())
        #expect(try await beta.waitSettled())
    }

    @Test func everyCallInHumanAndJSONForm() async throws {
        try alpha.start()
        try beta.start()
        defer { Task { [alpha, beta] in await alpha.stop(); await beta.stop() } }
        try FileManager.default.createDirectory(at: alpha.file("docs"), withIntermediateDirectories: true)
        let report = String(repeating: "%PDF report\n", count: 5_000)
        try report.write(to: alpha.file("docs/report.pdf"), atomically: false, encoding: .utf8)
        try "first notes\n".write(to: alpha.file("notes.txt"), atomically: false, encoding: .utf8)
        try Data(count: 2_000_000).write(to: alpha.file("huge.bin"))
        #expect(await eventually(timeout: .seconds(60)) {
            // beta's folder is a FUSE mount: the remote files show at their names, not downloaded.
            FileManager.default.fileExists(atPath: beta.file("docs/report.pdf").path)
                && FileManager.default.fileExists(atPath: beta.file("notes.txt").path)
        })
        try await settle()

        // ls: the folder's top level, then a directory's contents, in both forms.
        let top = try await json([ItemStatus].self, ["ls", beta.folder.path], on: beta)
        #expect(top.map(\.path) == ["docs", "notes.txt"])
        #expect(top.first { $0.path == "notes.txt" }?.downloadingStatus == "notDownloaded")
        let inside = try await json([ItemStatus].self, ["ls", beta.file("docs").path], on: beta)
        #expect(inside.map(\.name) == ["report.pdf"])
        #expect(inside.first?.size == Int64(report.utf8.count))
        let human = try await call(["ls", beta.file("docs").path], on: beta)
        #expect(human.status == 0 && human.output.contains("report.pdf") && !human.output.contains("\u{1B}["), "\(human.output)")
        #expect(try await call(["ls", "/nowhere/at/all"], on: beta).status != 0)

        // query, including a bad predicate (exit 2, the position in the message).
        let pdfs = try await json([ItemStatus].self, ["query", "name LIKE '*.pdf'"], on: beta)
        #expect(pdfs.map(\.path) == ["docs/report.pdf"])
        let placeholders = try await json([ItemStatus].self, ["query", "downloadingStatus == 'notDownloaded' AND size < 1MB"], on: beta)
        #expect(placeholders.map(\.path) == ["docs/report.pdf", "notes.txt"])
        let bad = try await call(["query", "name LIKE"], on: beta)
        #expect(bad.status == 2 && bad.errors.contains("position"), "\(bad)")
        #expect(try await call(["query", "size > 10KB"], on: alpha).output.contains("docs/report.pdf"))

        // download / evict by path, then by predicate.
        let downloaded = try await json([ActionOutcome].self, ["download", beta.file("docs/report.pdf").path], on: beta)
        #expect(downloaded.map(\.done) == [true])
        #expect(contents(beta.file("docs/report.pdf")) == report)
        let evicted = try await json([ActionOutcome].self, ["evict", beta.file("docs/report.pdf").path], on: beta)
        #expect(evicted.map(\.done) == [true])
        // Evicted, it still reads through the mount (fetched again on demand).
        #expect(try await json([ItemStatus].self, ["ls", beta.file("docs/report.pdf").path], on: beta).first?.downloadingStatus == "notDownloaded")
        #expect(contents(beta.file("docs/report.pdf")) == report)
        let byPredicate = try await call(["download", "--where", "name ENDSWITH '.pdf'"], on: beta)
        #expect(byPredicate.status == 0 && byPredicate.output.contains("report.pdf"), "\(byPredicate)")
        #expect(contents(beta.file("docs/report.pdf")) == report)
        // A named path that is no item: no such item (exit 4), and nothing else is done.
        for action in [["download"], ["evict"], ["resolve", "--keep", "local"]] {
            let missing = try await call(action + [beta.file("docs/report.pdf").path, beta.file("never-synced.txt").path], on: beta)
            #expect(missing.status == 4 && missing.errors.contains("no such item") && missing.errors.contains("never-synced.txt"), "\(action): \(missing)")
        }
        #expect(contents(beta.file("docs/report.pdf")) == report, "the evict that named a missing item evicted nothing")
        let refused = try await call(["evict", alpha.file("huge.bin").path], on: alpha)
        #expect(refused.status == 1 && refused.output.contains("huge.bin"), "an un-uploaded file is not evicted: \(refused)")
        #expect(FileManager.default.fileExists(atPath: alpha.file("huge.bin").path))

        // errors: the file over alpha's limit, with what to do.
        let problems = try await json([ProblemEntry].self, ["errors"], on: alpha)
        #expect(problems.contains { $0.path == "huge.bin" && $0.message.contains("max_file_size") }, "\(problems)")
        #expect(try await call(["errors"], on: alpha).output.contains("huge.bin"))

        // versions and restore: beta's edit overwrites alpha's copy, which is kept and restored.
        #expect(try await json([ActionOutcome].self, ["download", beta.file("notes.txt").path], on: beta).map(\.done) == [true])
        try overwrite(beta.file("notes.txt"), "notes edited on beta\n")
        #expect(await eventually(timeout: .seconds(60)) { contents(alpha.file("notes.txt")) == "notes edited on beta\n" })
        try await settle()
        let versions = try await json([VersionEntry].self, ["versions", alpha.file("notes.txt").path], on: alpha)
        #expect(versions.first?.reason == "overwritten" && versions.first?.device == "alpha", "\(versions)")
        #expect(try await call(["versions", alpha.file("notes.txt").path], on: alpha).output.contains("overwritten"))
        let restored = try await json([ActionOutcome].self, ["restore", alpha.file("notes.txt").path], on: alpha)
        #expect(restored.map(\.done) == [true])
        #expect(contents(alpha.file("notes.txt")) == "first notes\n")
        #expect(await eventually(timeout: .seconds(60)) { contents(beta.file("notes.txt")) == "first notes\n" }, "the restore is a new change")

        // conflicts (none), sync, and the overview with its last sync.
        #expect(try await json([ItemStatus].self, ["conflicts"], on: alpha).isEmpty)
        #expect(try await call(["conflicts"], on: alpha).status == 0)
        let synced = try await json(DaemonStatus.self, ["sync", "--timeout", "60"], on: beta)
        #expect(synced.folders.first?.lastSync != nil)
        let overview = try await call([], on: beta)
        #expect(overview.status == 0 && overview.output.contains("Docs"), "\(overview.output)")
    }

    @Test func aLiveQuerySeesCreateChangeAndRemove() async throws {
        try alpha.start()
        defer { Task { [alpha] in await alpha.stop() } }
        try "already here\n".write(to: alpha.file("seed.txt"), atomically: false, encoding: .utf8)
        #expect(await eventually(timeout: .seconds(60)) { (try? await alpha.waitSettled()) == true }, "the daemon answers once it is up")
        let process = Process()
        process.executableURL = builtProduct("docs-status")
        process.arguments = ["query", "name LIKE '*.txt'", "--watch", "--json", "--socket", alpha.socket]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let lines = Synchronized<[String]>([])
        output.fileHandleForReading.readabilityHandler = { handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            lines.update { $0 += text.split(separator: "\n").map(String.init) }
        }
        try process.run()
        func saw(_ event: String, _ path: String) -> Bool {
            lines.value.contains { $0.contains("\"event\":\"\(event)\"") && $0.contains("\"path\":\"\(path)\"") }
        }
        #expect(await eventually(timeout: .seconds(30)) { saw("initial", "seed.txt") }, "the initial result comes first")
        try "one\n".write(to: alpha.file("watched.txt"), atomically: false, encoding: .utf8)
        #expect(await eventually(timeout: .seconds(30)) { saw("added", "watched.txt") }, "\(lines.value)")
        try overwrite(alpha.file("watched.txt"), "one and two\n")
        #expect(await eventually(timeout: .seconds(30)) { saw("changed", "watched.txt") }, "\(lines.value)")
        try FileManager.default.removeItem(at: alpha.file("watched.txt"))
        #expect(await eventually(timeout: .seconds(30)) { saw("removed", "watched.txt") }, "\(lines.value)")
        process.interrupt()
        #expect(await eventually(timeout: .seconds(10)) { !process.isRunning })
        #expect(process.terminationStatus == 0)
        output.fileHandleForReading.readabilityHandler = nil
    }
}
