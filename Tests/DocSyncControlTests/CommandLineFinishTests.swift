#if canImport(Glibc)
import Glibc
#endif
import DocSyncControl
import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// The command-line finish (SPEC §15): completion scripts for bash, zsh and fish from each
/// built program (what `make install` installs, generated the same way from the release
/// binaries), and `docs-status`'s progress line: drawn on a terminal only.
@Suite struct CommandLineFinishTests {
    /// Each program, and words its completions must offer (subcommands and options).
    static let programs: [(name: String, words: [String])] = [
        ("docs-status", ["pin", "unpin", "wait", "download", "evict", "recover", "deletions", "kv", "--json", "--socket"]),
        ("docsyncd", ["--config", "--folder", "--backend"]),
        ("docsync-server", ["serve", "user", "add", "token", "gc", "migrate", "--log-level"]),
    ]

    @Test(arguments: ["bash", "zsh", "fish"])
    func completionScriptsNameTheCalls(shell: String) async throws {
        for program in Self.programs {
            let run = try await runProcess(builtProduct(program.name), ["--generate-completion-script", shell])
            #expect(run.status == 0, "\(program.name) \(shell): \(run.errors)")
            #expect(run.output.contains(program.name), "\(program.name) \(shell)")
            for word in program.words {
                // fish names an option without its dashes (`-l 'json'`).
                let written = shell == "fish" && word.hasPrefix("--") ? "-l '\(word.dropFirst(2))'" : word
                #expect(run.output.contains(written), "\(program.name)'s \(shell) completions lack \(word)")
            }
            if shell == "fish" {
                // fish names each subcommand in a `complete … -a 'NAME'` line of its own.
                for word in program.words where !word.hasPrefix("-") {
                    #expect(run.output.contains("'\(word)'"), "\(program.name)'s fish completions do not offer \(word)")
                }
            }
            // The script parses in its own shell (where that shell is installed; bash always is).
            if let interpreter = Self.shell(shell) {
                let directory = try TemporaryDirectory("completion")
                let script = directory.url.appendingPathComponent("\(program.name).\(shell)")
                try Data(run.output.utf8).write(to: script)
                let check = try await runProcess(interpreter, ["-n", script.path])
                #expect(check.status == 0, "\(shell) -n \(program.name): \(check.errors)")
            } else {
                #expect(shell != "bash", "bash is not installed")
            }
        }
    }

    /// The path of `name` on $PATH, when it is installed.
    static func shell(_ name: String) -> URL? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    // MARK: progress

    @Test func waitDrawsPendingTransfersOnATerminal() async throws {
        let handler = ProgressingDaemon(waitsForPolls: 3)
        let running = try RunningServer(handler: handler)
        let run = try await onTerminalStderr(["wait", "--socket", running.socketPath])
        #expect(run.status == 0, "\(run.errors.debugDescription)")
        #expect(run.output == "settled: 1 folder, nothing pending\n")
        #expect(hasNoEscapes(run.output))
        // The second sample (1 MB of 3 MB sent) is drawn before the third is asked for.
        #expect(run.errors.contains("\r"), "\(run.errors.debugDescription)")
        #expect(run.errors.contains("waiting: 2 to send (2 MB) [") && run.errors.contains(" 33%\u{1B}[K"), "\(run.errors.debugDescription)")
        // Taken away at the end: nothing of the bar is left on the screen.
        #expect(run.errors.hasSuffix("\r\u{1B}[K"), "\(run.errors.debugDescription)")
        #expect(handler.asked(.status) >= 3)
        try await running.stop()
    }

    @Test func downloadDrawsTheFilesItConcernsOnATerminal() async throws {
        let handler = ProgressingDaemon(waitsForPolls: 3)
        let running = try RunningServer(handler: handler)
        let run = try await onTerminalStderr(["download", "--where", "name LIKE '*.mkv'", "--socket", running.socketPath])
        #expect(run.status == 0, "\(run.errors.debugDescription)")
        #expect(hasNoEscapes(run.output))
        #expect(run.output.contains("✓ done"))
        // Asked before the call (both placeholders), then: one down, the other half-way.
        #expect(run.errors.contains("downloading 1 of 2 files (1.5 MB of 2 MB) ["), "\(run.errors.debugDescription)")
        #expect(run.errors.contains(" 75%\u{1B}[K"), "\(run.errors.debugDescription)")
        #expect(run.errors.hasSuffix("\r\u{1B}[K"), "\(run.errors.debugDescription)")
        try await running.stop()
    }

    @Test func noProgressInAPipeOrWithJSON() async throws {
        let handler = ProgressingDaemon(waitsForPolls: 0)
        let running = try RunningServer(handler: handler)
        let piped = try await docsStatus(["wait", "--socket", running.socketPath])
        #expect(piped.status == 0)
        #expect(piped.output == "settled: 1 folder, nothing pending\n")
        #expect(piped.errors.isEmpty, "\(piped.errors.debugDescription)")
        let downloaded = try await docsStatus(["download", "--where", "name LIKE '*.mkv'", "--socket", running.socketPath])
        #expect(downloaded.status == 0)
        #expect(hasNoEscapes(downloaded.output + downloaded.errors))
        let json = try await onTerminalStderr(["wait", "--json", "--socket", running.socketPath])
        #expect(json.status == 0)
        #expect(json.errors.isEmpty, "\(json.errors.debugDescription)")
        #expect(try decodeJSON(DaemonStatus.self, json.output).folders.count == 1)
        // Nothing drew, so nothing was asked beside the calls themselves.
        #expect(handler.asked(.status) == 0)
        #expect(handler.asked(.query) == 0)
        try await running.stop()
    }

    /// Runs `docs-status` with stderr on a new pseudo-terminal (stdout on a pipe); what it
    /// wrote to each.
    private func onTerminalStderr(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        let (master, slave) = try PseudoTerminal.make()
        defer { close(master) }
        // Raw: the terminal passes "\r" and "\n" through as they are.
        var settings = termios()
        tcgetattr(slave, &settings)
        cfmakeraw(&settings)
        tcsetattr(slave, TCSANOW, &settings)
        let process = makeDocsStatus(arguments, in: nil, environment: ["COLUMNS": "100", "TERM": "xterm"])
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        let exit = ProcessExit(of: process)
        try process.run()
        close(slave)
        let errors = await PseudoTerminal.drain(master)
        let written = await onOwnThread { output.fileHandleForReading.readDataToEndOfFile() }
        await exit.ended()
        return (process.terminationStatus, String(decoding: written, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }
}

/// A daemon stand-in whose `wait` and `download` answer only once `docs-status` has polled
/// its progress `waitsForPolls` times (0: at once), and whose pending transfers and
/// placeholders advance with each poll.
private final class ProgressingDaemon: ControlHandler {
    enum Kind { case status, query, other }

    private let waitsForPolls: Int
    private let counts = Synchronized<[Kind: Int]>([:])

    init(waitsForPolls: Int) {
        self.waitsForPolls = waitsForPolls
    }

    func asked(_ kind: Kind) -> Int { counts.value[kind] ?? 0 }

    func handle(_ request: ControlRequest) async -> ControlResponse {
        switch request {
        case .status:
            let polls = count(.status)
            let left = Int64(max(0, 3 - (polls - 1)))  // 3, 2, 1, 0… items of 1 MB to send
            return .status(Self.status(pendingUploads: Int(left), bytes: left * 1_000_000))
        case .query:
            // The first answer is asked before the call: both placeholders.
            let polls = count(.query)
            let b = polls <= 1 ? Self.placeholder("b.mkv") : polls == 2 ? Self.placeholder("b.mkv", downloading: 50) : Self.downloaded("b.mkv")
            return .items(items: [polls <= 1 ? Self.placeholder("a.mkv") : Self.downloaded("a.mkv"), b])
        case .wait:
            _ = count(.other)
            await pollsSeen(.status)
            return .settled(Self.status(pendingUploads: 0, bytes: 0))
        case .download:
            _ = count(.other)
            await pollsSeen(.query)
            return .actions(outcomes: ["a.mkv", "b.mkv"].map { ActionOutcome(folder: "Movies", path: $0, done: true) })
        default:
            return .failure(code: "unexpected", message: "\(request)")
        }
    }

    /// Counts one request of `kind`; how many there have been, this one included.
    private func count(_ kind: Kind) -> Int {
        counts.update { counts -> Int in
            counts[kind, default: 0] += 1
            return counts[kind] ?? 0
        }
    }

    /// Returns once `kind` was asked `waitsForPolls` times (the download's own first query
    /// does not count), or after `patience`.
    private func pollsSeen(_ kind: Kind) async {
        let needed = waitsForPolls + (kind == .query && waitsForPolls > 0 ? 1 : 0)
        _ = await eventually(timeout: patience) { asked(kind) >= needed }
    }

    static func status(pendingUploads: Int, bytes: Int64) -> DaemonStatus {
        DaemonStatus(device: "laptop", backend: "file:///srv/docsync", account: "signed in", folders: [
            FolderStatus(id: "Documents", path: "/home/ada/Documents", state: pendingUploads == 0 ? .idle : .syncing,
                         items: 3, pendingUploads: pendingUploads, pendingUploadBytes: bytes),
        ])
    }

    static func placeholder(_ path: String, downloading percent: Double? = nil) -> ItemStatus {
        Fixtures.item(path, folder: "Movies", size: 1_000_000, downloadingStatus: "notDownloaded",
                      isDownloading: percent != nil, percentDownloaded: percent ?? 0)
    }

    static func downloaded(_ path: String) -> ItemStatus {
        Fixtures.item(path, folder: "Movies", size: 1_000_000)
    }
}
