#if canImport(Glibc)
import Glibc
#endif
import DocSyncControl
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// A daemon stand-in for `docs-status`: answers each request with `answer`, records what it
/// was asked, and streams `updates` to a live query until the client hangs up (or, with
/// `endsWatch`, ends the query itself, as a daemon that stops does).
final class ScriptedHandler: ControlHandler {
    let requests = Synchronized<[ControlRequest]>([])
    /// Set when a live query's call was cancelled because the client closed the connection.
    let watchClosed = Synchronized(false)
    private let updates: [ItemChanges]
    private let endsWatch: Bool
    private let answer: @Sendable (ControlRequest) -> ControlResponse

    init(updates: [ItemChanges] = [], endsWatch: Bool = false, answer: @escaping @Sendable (ControlRequest) -> ControlResponse) {
        self.updates = updates
        self.endsWatch = endsWatch
        self.answer = answer
    }

    func handle(_ request: ControlRequest) async -> ControlResponse {
        requests.update { $0.append(request) }
        return answer(request)
    }

    func handle(_ request: ControlRequest, emit: @escaping @Sendable (ControlResponse) async -> Void) async -> ControlResponse {
        guard case .query(_, watch: true) = request else { return await handle(request) }
        requests.update { $0.append(request) }
        if case .failure = answer(request) { return answer(request) }
        for update in updates { await emit(.changes(changes: update)) }
        if endsWatch { return .items(items: []) }
        while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
        watchClosed.update { $0 = true }
        return .items(items: [])
    }
}

/// What a `docs-status` run left.
struct DocsStatusRun {
    let status: Int32
    let output: String
    let errors: String
}

/// Runs the built `docs-status` to completion in `directory` (default: this process's),
/// with `environment` added to this process's (TZ=UTC always, for the dates of tables).
func docsStatus(_ arguments: [String], in directory: String? = nil, environment: [String: String] = [:]) async throws -> DocsStatusRun {
    let result = try await runToEnd(makeDocsStatus(arguments, in: directory, environment: environment))
    return DocsStatusRun(status: result.status, output: result.output, errors: result.errors)
}

func makeDocsStatus(_ arguments: [String], in directory: String?, environment: [String: String]) -> Process {
    let process = Process()
    process.executableURL = builtProduct("docs-status")
    process.arguments = arguments
    var merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    merged["TZ"] = merged["TZ"] ?? "UTC"
    process.environment = merged
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    return process
}

/// A `docs-status` that keeps running (a live query): its output as it comes.
final class RunningDocsStatus: Sendable {
    private let process: Process
    private let output = Synchronized(Data())
    private let errors = Synchronized(Data())
    private let exited = Synchronized<Int32?>(nil)

    init(_ arguments: [String], in directory: String? = nil) throws {
        process = makeDocsStatus(arguments, in: directory, environment: [:])
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        // Not `waitUntilExit()`, which keeps a core busy for as long as the process runs.
        process.terminationHandler = { [exited] process in exited.update { $0 = process.terminationStatus } }
        try process.run()
        for (pipe, buffer) in [(out, output), (err, errors)] {
            Thread {
                while true {
                    let chunk = pipe.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    buffer.update { $0.append(chunk) }
                }
            }.start()
        }
    }

    var text: String { String(decoding: output.value, as: UTF8.self) }
    var errorText: String { String(decoding: errors.value, as: UTF8.self) }
    var lines: [String] { text.split(separator: "\n").map(String.init) }

    /// Waits until stdout has at least `count` lines (or the process ended); returns whether it has.
    func waitForLines(_ count: Int) async -> Bool {
        await eventually(timeout: patience) { lines.count >= count || exited.value != nil } && lines.count >= count
    }

    func interrupt() { process.interrupt() }
    func terminate() { process.terminate() }

    /// The exit status, once the process has ended and its output is read; `nil` if it has
    /// not ended within `patience`.
    func exitStatus() async -> Int32? {
        guard await eventually(timeout: patience, { exited.value != nil }) else {
            kill(process.processIdentifier, SIGKILL)
            return nil
        }
        return exited.value
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// Sample items, statuses and answers for the `docs-status` tests.
enum Fixtures {
    static let modified = Date(timeIntervalSince1970: 1_790_000_000)  // 2026-09-21 14:13:20 UTC

    static func item(
        _ path: String, folder: String = "Documents", kind: String = "Document", size: Int64 = 1_200_000,
        downloadingStatus: String = "current", isDownloading: Bool = false, percentDownloaded: Double = 100,
        isUploading: Bool = false, isUploaded: Bool = true, percentUploaded: Double = 100,
        downloadingError: String? = nil, uploadingError: String? = nil, conflict: Bool = false
    ) -> ItemStatus {
        ItemStatus(
            folder: folder, path: path, name: String(path.split(separator: "/").last ?? ""), kind: kind, size: size,
            modified: modified, downloadingStatus: downloadingStatus, isDownloading: isDownloading,
            percentDownloaded: percentDownloaded, isUploading: isUploading, isUploaded: isUploaded,
            percentUploaded: percentUploaded, downloadingError: downloadingError, uploadingError: uploadingError,
            hasUnresolvedConflicts: conflict
        )
    }

    static let current = item("report.pdf")
    static let uploading = item("big.iso", size: 40_000_000, isUploading: true, isUploaded: false, percentUploaded: 42.7)
    static let folder = item("Reports", kind: "Folder", size: 0)
    static let placeholder = item("movie.mkv", size: 700_000_000, downloadingStatus: "notDownloaded", percentDownloaded: 0)
    static let downloading = item("notes.txt", size: 2_000, downloadingStatus: "downloaded", isDownloading: true, percentDownloaded: 17.5)
    static let failing = item("broken.txt", size: 10, isUploaded: false, percentUploaded: 0, uploadingError: "quota exceeded: not uploaded")
    static let conflicted = item("paper.tex", size: 5_000, conflict: true)
    static let copy = item("paper (conflict desktop 2026-09-21 14.13.20).tex", size: 4_000)

    static let items = [current, uploading, folder, placeholder, downloading, failing, conflicted]

    static let status = DaemonStatus(
        device: "laptop", backend: "file:///srv/docsync", account: "signed in",
        folders: [
            FolderStatus(
                id: "Documents", path: "/home/ada/Documents", state: .syncing, items: 7,
                pendingUploads: 2, pendingUploadBytes: 40_000_010, pendingDownloads: 1, pendingDownloadBytes: 2_000,
                conflicts: 1, lastSync: Date(timeIntervalSince1970: 1_790_000_000)
            ),
            FolderStatus(id: "Pictures", path: "/home/ada/Pictures", state: .idle, lastSync: Date(timeIntervalSince1970: 1_789_990_000)),
        ]
    )

    static let problems = [
        ProblemEntry(folder: "Documents", path: "broken.txt", message: "quota exceeded: not uploaded"),
        ProblemEntry(folder: "Pictures", path: ".", message: "folder is not readable: permission denied"),
    ]

    static let versions = [
        VersionEntry(id: 12, folder: "Documents", path: "report.pdf", savedAt: modified, reason: "overwritten", device: "desktop", size: 1_100_000),
        VersionEntry(id: 7, folder: "Documents", path: "report.pdf", savedAt: modified - 86_400, reason: "conflict", device: "laptop", size: 900),
    ]
}

/// The decoder of the protocol, for `--json` output.
func decodeJSON<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
    try ControlFraming.makeDecoder().decode(type, from: Data(text.utf8))
}

/// `text` has no ANSI escape (no colour when stdout is not a terminal).
func hasNoEscapes(_ text: String) -> Bool { !text.contains("\u{1B}") }

/// A line of `text` whose cells, split on runs of spaces, are exactly `cells`.
func hasRow(_ text: String, _ cells: [String]) -> Bool {
    text.split(separator: "\n").contains { line in
        line.split(separator: "  ", omittingEmptySubsequences: true)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty } == cells
    }
}

/// A fresh working directory for a `docs-status` run, with the path `getcwd` gives in it.
func workingDirectory() throws -> (TemporaryDirectory, String) {
    let directory = try TemporaryDirectory("cwd")
    let physical = directory.url.resolvingSymlinksInPath().path
    return (directory, physical)
}
