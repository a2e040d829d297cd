import DocSyncControl
import DocSyncCore
import DocSyncStorage
import Foundation

/// A `docsyncd` (the release build beside this benchmark) on one folder, for the sync
/// benchmarks.
final class BenchDaemon {
    let folder: URL
    let socket: String
    private let process = Process()
    private let exit: ProcessExit

    let name: String

    /// A daemon of device `name` syncing `base/name/ZONE` through `backend` (a `file://`
    /// URL, or `http://` with `tokenFile`): the `docsyncd` in `binaries` (by default the one
    /// beside this benchmark), run under `wrapper` when one is given (`valgrind …`).
    init(name: String, base: URL, backend: URL, tokenFile: URL? = nil, zone: String = "Bench", extraArguments: [String] = [],
         binaries: URL = BenchDaemon.ownBinaries, wrapper: [String] = []) throws {
        self.name = name
        // Both devices name their folder after the zone: the one-folder form takes the zone name from it.
        folder = base.appendingPathComponent(name).appendingPathComponent(zone)
        socket = "/tmp/dsb-\(UUID().uuidString.prefix(8)).sock"
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let executable = binaries.appendingPathComponent("docsyncd")
        process.executableURL = wrapper.first.map { URL(fileURLWithPath: $0) } ?? executable
        process.arguments = (wrapper.isEmpty ? [] : wrapper.dropFirst() + [executable.path]) + ["--folder", folder.path, "--backend", backend.absoluteString, "--device", name,
                             "--state-dir", base.appendingPathComponent("\(name)-state").path, "--socket", socket, "--log-level", "warning"]
            + (tokenFile.map { ["--token-file", $0.path] } ?? []) + extraArguments
        let log = base.appendingPathComponent("\(name).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        exit = ProcessExit(of: process)
    }

    func start() throws { try process.run() }

    /// The directory of this benchmark's executable, where the release build puts the others.
    static var ownBinaries: URL { URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent() }

    /// The daemon's process id (once started).
    var pid: Int32 { process.processIdentifier }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        exit.wait()
        unlink(socket)
    }

    deinit { stop() }

    /// The daemon's status, or `nil` while it does not answer yet.
    func status(timeout: Duration = .seconds(5)) async -> DaemonStatus? {
        guard case .status(let status)? = try? await ControlClient(socketPath: socket).send(.status, timeout: timeout) else { return nil }
        return status
    }

    /// Polls (every `interval`) until the daemon's folder holds `items` items and is settled;
    /// returns the seconds since `started`. Throws after an hour.
    func waitUntilSettled(items: Int, since started: ContinuousClock.Instant, pollEvery interval: Duration = .milliseconds(100)) async throws -> Double {
        while true {
            if let status = await status(), let folder = status.folders.first, folder.items == items, folder.isSettled { break }
            if ContinuousClock.now - started > .seconds(3600) { throw BenchError("\(name) did not index \(items) items within an hour") }
            try await Task.sleep(for: interval)
        }
        return SyncBench.seconds(ContinuousClock.now - started)
    }

    /// Waits until the daemon reports every folder settled.
    func waitSettled(timeout: Double = 600) async -> Bool {
        guard case .settled? = try? await ControlClient(socketPath: socket).send(.wait(timeoutSeconds: timeout)) else { return false }
        return true
    }
}
