import DocSyncControl
import DocSyncCore
import DocSyncDaemon
import DocSyncTestSupport
import Foundation
import Logging
import ServiceLifecycle
import Testing

@Suite struct ControlServerServiceTests {
    struct StatusHandler: ControlHandler {
        func handle(_ request: ControlRequest) async -> ControlResponse {
            .status(DaemonStatus(device: "test", backend: "file:///b", account: "signed in", folders: []))
        }
    }

    @Test func servesUntilTheGroupShutsDownGracefully() async throws {
        let directory = try TemporaryDirectory("svc")
        let socket = "\(directory.path)/control.sock"
        let logger = Logger(label: "test.service") { _ in SwiftLogNoOpLogHandler() }
        let server = try ControlServer(socketPath: socket, handler: StatusHandler(), logger: logger)
        let group = ServiceGroup(services: [ControlServerService(server: server)], logger: logger)
        let running = Task { try await group.run() }
        let client = ControlClient(socketPath: socket)
        guard case .status(let status) = try await client.send(.status) else {
            Issue.record("expected a status")
            return
        }
        #expect(status.device == "test")
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(!FileManager.default.fileExists(atPath: socket), "the socket file goes with the service")
        await #expect(throws: ControlClientError.daemonNotRunning(socketPath: socket)) { try await client.send(.status) }
    }
}
