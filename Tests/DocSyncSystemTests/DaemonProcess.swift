import DocSyncControl
import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// One real `docsyncd` process syncing one folder of a test "device", with its own state
/// directory, socket and log file, all inside the test's temporary directory.
final class DaemonProcess: @unchecked Sendable {
    let name: String
    let folder: URL
    let stateDirectory: URL
    let socket: String
    let log: URL
    let backend: URL
    let extraArguments: [String]
    /// The unprivileged user the daemon runs as (through `setpriv`), or nil for this process's.
    let runAs: UnprivilegedUser?
    private var process: Process?
    private var exit: ProcessExit?

    /// Sets up (without starting) device `name` under `base`, syncing through `backend`.
    /// `socket` names the control socket (default: a new one in /tmp), for the same device
    /// started again with other arguments.
    init(name: String, base: URL, backend: URL, extraArguments: [String] = [], socket: String? = nil, runAs: UnprivilegedUser? = nil) throws {
        self.runAs = runAs
        self.name = name
        // Both devices name their folder "Docs": the one-folder form takes the zone name from it.
        self.folder = base.appendingPathComponent(name).appendingPathComponent("Docs")
        self.stateDirectory = base.appendingPathComponent("\(name)-state")
        // sun_path holds 108 bytes: keep the socket short.
        self.socket = socket ?? "/tmp/ds-\(UUID().uuidString.prefix(8)).sock"
        self.log = base.appendingPathComponent("\(name).log")
        self.backend = backend
        self.extraArguments = extraArguments
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit {
        if let process, process.isRunning { kill(process.processIdentifier, SIGKILL) }
        unlink(socket)
    }

    var arguments: [String] {
        ["--folder", folder.path, "--backend", backend.absoluteString, "--device", name,
         "--state-dir", stateDirectory.path, "--socket", socket, "--log-level", "debug"]
            // Each test daemon's status page on a free port, not the default 8385 they would all want.
            + (extraArguments.contains("--web-listen") ? [] : ["--web-listen", "127.0.0.1:0"]) + extraArguments
    }

    func start() throws {
        let process = Process()
        if let runAs {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = runAs.setprivArguments + [builtProduct("docsyncd").path] + arguments
        } else {
            process.executableURL = builtProduct("docsyncd")
            process.arguments = arguments
        }
        // No desktop notifications from a test's daemons on a developer's session bus.
        process.environment = ProcessInfo.processInfo.environment.filter { $0.key != "DBUS_SESSION_BUS_ADDRESS" }
        if !FileManager.default.fileExists(atPath: log.path) { _ = FileManager.default.createFile(atPath: log.path, contents: nil) }
        let handle = try FileHandle(forWritingTo: log)
        handle.seekToEndOfFile()
        process.standardError = handle
        process.standardOutput = handle
        let exit = ProcessExit(of: process)
        try process.run()
        self.process = process
        self.exit = exit
    }

    /// SIGTERM, then waits for the exit; returns the exit status.
    @discardableResult
    func stop() async -> Int32? {
        guard let process, process.isRunning else { return process?.terminationStatus }
        kill(process.processIdentifier, SIGTERM)
        _ = await eventually(timeout: .seconds(20)) { !process.isRunning }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        await exit?.ended()
        return process.terminationStatus
    }

    /// SIGKILL: the daemon gets no chance to tidy up.
    func crash() async {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        await exit?.ended()
    }

    var isRunning: Bool { process?.isRunning ?? false }

    /// `docs-status wait`: true when the daemon reports every folder settled in time.
    func waitSettled(timeout: Int = 60) async throws -> Bool {
        let result = try await runProcess(builtProduct("docs-status"), ["wait", "--socket", socket, "--timeout", "\(timeout)"])
        return result.status == 0
    }

    /// `docs-status ARGUMENTS --socket SOCKET` as a process: its exit status and output.
    func docsStatus(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        try await runProcess(builtProduct("docs-status"), arguments + ["--socket", socket])
    }

    /// `docs-status ARGUMENTS --json`, expected to succeed, its output decoded as `T`.
    func docsStatusJSON<T: Decodable>(_ type: T.Type, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> T {
        let result = try await docsStatus(arguments + ["--json"])
        #expect(result.status == 0, "docs-status \(arguments): \(result.errors)", sourceLocation: sourceLocation)
        return try ControlFraming.makeDecoder().decode(T.self, from: Data(result.output.utf8))
    }

    /// The daemon's status, through `docs-status --json`.
    func status() async throws -> DaemonStatus? {
        let result = try await runProcess(builtProduct("docs-status"), ["--socket", socket, "--json"])
        guard result.status == 0 else { return nil }
        return try? ControlFraming.makeDecoder().decode(DaemonStatus.self, from: Data(result.output.utf8))
    }

    func logText() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// The log without the lines of control requests (a test polling the daemon fills its
    /// tail with them): what a failure message should show.
    func logTextWithoutRequests() -> String {
        logText().split(separator: "\n").filter { !$0.contains("[DocSyncControl] control request") }.joined(separator: "\n")
    }

    func file(_ relative: String) -> URL { folder.appendingPathComponent(relative) }
}
