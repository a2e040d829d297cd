import DocSyncControl
import DocSyncCore
import DocSyncEngine
import DocSyncHTTP
import DocSyncStorage
import DocSyncWatcher
import Foundation
import Logging
import ServiceLifecycle

/// The daemon: one engine and one watcher per folder, the control socket, all inside one
/// `ServiceGroup` that stops on SIGTERM or SIGINT — each folder finishes its current step
/// (every index change is one transaction), the socket is removed, and `run` returns.
public enum Daemon {
    public static func run(configuration: DaemonConfiguration, logger: Logger) async throws {
        let backend = try makeBackend(configuration.backend)
        try FileManager.default.createDirectory(at: configuration.stateDirectory, withIntermediateDirectories: true)
        var folders: [FolderService] = []
        for folder in configuration.folders {
            folders.append(try FolderService(folder: folder, daemon: configuration, backend: backend, logger: logger))
        }
        let handler = DaemonControlHandler(configuration: configuration, folders: folders, backend: backend)
        // Bound before anything starts: a second daemon on the same socket stops here.
        let server = try ControlServer(socketPath: configuration.socketPath.path, handler: handler, logger: logger)
        let group = ServiceGroup(
            services: folders.map { $0 as any Service } + [ControlServerService(server: server)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        logger.info("docsyncd started", metadata: [
            "device": "\(configuration.device)", "backend": "\(configuration.backend.url.absoluteString)",
            "folders": "\(configuration.folders.map(\.path.path))", "socket": "\(configuration.socketPath.path)",
        ])
        try await group.run()
        if let client = backend as? HTTPBackend { await client.shutdown() }
        logger.info("docsyncd stopped")
    }
}

/// A failure that stops the daemon from starting, with what to do about it.
public struct DaemonError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
