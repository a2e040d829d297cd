import DocSyncControl
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// `docs-status` as a real process, against a `ControlServer` in this process.
@Suite struct DocsStatusProcessTests {
    @Test func saysPlainlyWhenTheDaemonIsNotRunning() async throws {
        let directory = try TemporaryDirectory("ctl")
        let socket = "\(directory.path)/control.sock"
        for arguments in [["--socket", socket], ["wait", "--socket", socket], ["--json", "--socket", socket]] {
            let result = try await docsStatus(arguments)
            #expect(result.status == 3, "\(arguments)")
            #expect(result.errors == "docs-status: docsyncd is not running (no daemon answers on \(socket))\n")
            #expect(result.output.isEmpty)
        }
        // Found through $DOCSYNC_SOCKET too.
        let fromEnvironment = try await docsStatus([], environment: ["DOCSYNC_SOCKET": socket])
        #expect(fromEnvironment.status == 3)
        #expect(fromEnvironment.errors.contains(socket))
    }

    @Test func jsonStatusRoundTrip() async throws {
        let handler = TestHandler()
        let running = try RunningServer(handler: handler)
        let result = try await docsStatus(["--json", "--socket", running.socketPath])
        #expect(result.status == 0, "\(result.errors)")
        let decoded = try ControlFraming.makeDecoder().decode(DaemonStatus.self, from: Data(result.output.utf8))
        #expect(decoded == handler.status)
        let fromEnvironment = try await docsStatus(["--json"], environment: ["DOCSYNC_SOCKET": running.socketPath])
        #expect(fromEnvironment.output == result.output)
        try await running.stop()
    }

    @Test func humanOverview() async throws {
        let running = try RunningServer(handler: TestHandler())
        let result = try await docsStatus(["--socket", running.socketPath])
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.prefix(3) == ["device:  laptop", "backend: file:///srv/docsync", "account: signed in"])
        let header = try #require(lines.first { $0.hasPrefix("FOLDER") })
        #expect(header.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            == "FOLDER STATE ITEMS UPLOADS DOWNLOADS CONFLICTS PROBLEMS LAST SYNC")
        let documents = try #require(lines.first { $0.hasPrefix("Documents ") })
        for cell in ["syncing", "12", "2 (2 MB)", "1 (512 B)", "2026-09-2"] {
            #expect(documents.contains(cell), "\(documents) lacks \(cell)")
        }
        let pictures = try #require(lines.first { $0.hasPrefix("Pictures ") })
        #expect(pictures.contains("idle") && pictures.hasSuffix("never"))
        #expect(lines.contains("Documents: uploading") || lines.contains { $0.hasPrefix("Documents: uploading") })
        #expect(lines.contains("/home/ada/Documents/big.iso: file is 60 MB, over max_file_size (50 MB): not synced"))
        try await running.stop()
    }

    @Test func waitExitsZeroOnceSettled() async throws {
        let handler = TestHandler()
        handler.release()
        let running = try RunningServer(handler: handler)
        let result = try await docsStatus(["wait", "--timeout", "30", "--socket", running.socketPath])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "settled: 2 folders, nothing pending\n")
        #expect(handler.requests.value == [.wait(timeoutSeconds: 30)])
        let json = try await docsStatus(["wait", "--json", "--socket", running.socketPath])
        #expect(json.status == 0)
        #expect(try ControlFraming.makeDecoder().decode(DaemonStatus.self, from: Data(json.output.utf8)) == handler.status)
        try await running.stop()
    }

    @Test func waitExitsOneOnTimeout() async throws {
        let running = try RunningServer(handler: TestHandler())
        let result = try await docsStatus(["wait", "--timeout", "0.2", "--socket", running.socketPath])
        #expect(result.status == 1)
        #expect(result.errors == "docs-status: not settled after 0.2 s: Documents is syncing\n")
        let json = try await docsStatus(["wait", "--timeout", "0", "--json", "--socket", running.socketPath])
        #expect(json.status == 1)
        let report = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: [String: String]]
        #expect(report?["error"]?["code"] == "timeout")
        try await running.stop()
    }

    @Test func usageErrorsExitTwo() async throws {
        #expect(try await docsStatus(["--no-such-flag"]).status == 2)
        #expect(try await docsStatus(["wait", "--timeout", "-1"]).status == 2)
        let help = try await docsStatus(["--help"])
        #expect(help.status == 0 && help.output.contains("Exit codes"))
    }

    /// Runs the built `docs-status` with `environment` added to this process's.
    private func docsStatus(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, output: String, errors: String) {
        try await runProcess(builtProduct("docs-status"), arguments, environment: environment)
    }
}
