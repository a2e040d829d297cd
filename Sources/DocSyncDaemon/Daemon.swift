import DocSyncControl
import DocSyncCore
import Logging
import ServiceLifecycle

/// The daemon: its services in one `ServiceGroup`, stopped gracefully by SIGTERM or SIGINT.
///
/// Placeholder wiring until the sync engine is connected: only the control socket runs,
/// answering `status` with this configuration and no folders.
public enum Daemon {
    /// Runs until SIGTERM/SIGINT (then returns) or a service fails (then throws; a control
    /// socket another daemon answers on throws `ControlServerError.alreadyInUse` at once).
    public static func run(configuration: DaemonConfiguration, logger: Logger) async throws {
        let handler = StatusOnlyHandler(configuration: configuration)
        let server = try ControlServer(socketPath: configuration.socketPath.path, handler: handler, logger: logger)
        let group = ServiceGroup(
            services: [ControlServerService(server: server)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        logger.info("docsyncd started", metadata: ["device": "\(configuration.device)", "socket": "\(server.socketPath)"])
        try await group.run()
        logger.info("docsyncd stopped")
    }

    private struct StatusOnlyHandler: ControlHandler {
        let configuration: DaemonConfiguration

        func handle(_ request: ControlRequest) async -> ControlResponse {
            let status = DaemonStatus(device: configuration.device, backend: configuration.backend.url.absoluteString, account: "signed in", folders: [])
            switch request {
            case .status: return .status(status)
            case .wait: return .settled(status)
            }
        }
    }
}
