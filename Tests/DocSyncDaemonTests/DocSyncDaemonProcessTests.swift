import DocSyncControl
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// `docsyncd` as a real process: configuration errors, start, status, SIGTERM.
@Suite struct DocSyncDaemonProcessTests {
    @Test func aConfigurationErrorIsOneLineAndExitCodeTwo() async throws {
        let directory = try TemporaryDirectory("dmn")
        let config = "\(directory.path)/docsync.toml"
        try Data("[backend]\nurl = \"file:///srv\"\n\n[[folders]]\nid = \"A\"\npath = \"/a\"\nmode = \"mirorr\"\n".utf8)
            .write(to: URL(fileURLWithPath: config))
        let result = try await runProcess(builtProduct("docsyncd"), ["--config", config])
        #expect(result.status == 2)
        #expect(result.errors == "docsyncd: \(config):7: folders[0].mode: \"mirorr\" is not one of mirror, on-demand, send-only, receive-only\n")

        let usage = try await runProcess(builtProduct("docsyncd"), ["--folder", directory.path])
        #expect(usage.status == 2)
        #expect(usage.errors.hasPrefix("docsyncd: --backend: is required"))
        #expect(try await runProcess(builtProduct("docsyncd"), ["--no-such-flag"]).status == 2)
    }

    @Test func runsAnswersStatusAndStopsOnSIGTERM() async throws {
        let directory = try TemporaryDirectory("dmn")
        let folder = directory.url.appendingPathComponent("Notes")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let socket = "\(directory.path)/run/control.sock"
        let arguments = [
            "--folder", folder.path, "--backend", "file://\(directory.path)/backend", "--device", "test-device",
            "--state-dir", "\(directory.path)/state", "--socket", socket, "--log-level", "warning",
        ]
        let daemon = try DaemonProcess(arguments, log: directory.url.appendingPathComponent("docsyncd.log"))
        let client = ControlClient(socketPath: socket)
        var answer: ControlResponse?
        #expect(await eventually(timeout: .seconds(60)) {
            answer = try? await client.send(.status, timeout: .seconds(30))
            return answer != nil
        }, "docsyncd answers on \(socket): \(daemon.log)")
        guard case .status(let status)? = answer else {
            Issue.record("expected a status, got \(String(describing: answer))")
            return
        }
        #expect(status.device == "test-device")
        // Its key pair is in the state directory, the user's alone, and status shows its fingerprint.
        let keyFile = URL(fileURLWithPath: "\(directory.path)/state/device-key")
        let keys = try EncryptionKeyPair(privateBytes: try Data(contentsOf: keyFile))
        #expect(status.deviceKeyFingerprint == keys.publicKeys.fingerprint)
        #expect(try FileManager.default.attributesOfItem(atPath: keyFile.path)[.posixPermissions] as? Int == 0o600)

        // A second daemon on the same socket refuses to start and leaves the first alone.
        let second = try await runProcess(builtProduct("docsyncd"), arguments)
        #expect(second.status == 1)
        #expect(second.errors.contains("another docsyncd is already running with control socket \(socket)"))
        // The first daemon still answers (its status moves on as it syncs: compare who answers).
        guard case .status(let again) = try await client.send(.status) else {
            Issue.record("the first daemon stopped answering")
            return
        }
        #expect(again.device == status.device && again.folders.map(\.id) == status.folders.map(\.id))

        daemon.terminate()
        let exit = await daemon.exitStatus(within: .seconds(60))
        #expect(exit == 0, "\(daemon.log)")
        #expect(!FileManager.default.fileExists(atPath: socket))
    }
}

/// A running `docsyncd`, its stderr in a file.
final class DaemonProcess: Sendable {
    private let process: Process
    private let logFile: URL

    init(_ arguments: [String], log: URL) throws {
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = builtProduct("docsyncd")
        process.arguments = arguments
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        self.process = process
        logFile = log
    }

    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// Sends SIGTERM.
    func terminate() { process.terminate() }

    /// The exit status once the process has exited, or `nil` after `timeout` (then it is killed).
    func exitStatus(within timeout: Duration) async -> Int32? {
        let exited = await eventually(timeout: timeout, pollEvery: .milliseconds(20)) { !self.process.isRunning }
        guard exited else {
            kill(process.processIdentifier, SIGKILL)
            return nil
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
