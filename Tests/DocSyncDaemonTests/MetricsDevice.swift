@testable import DocSyncDaemon
import DocSyncCore
import DocSyncStorage
import Foundation
import Logging
import Synchronization

/// A device for the metrics tests: one folder (`Docs`) run as the daemon runs it (a
/// `FolderService`: inotify watcher, engine, the backend's notifications) and the daemon's
/// metrics over it. The folder can be stopped and started again, as the daemon re-creates
/// a folder (a new service and engine on the same state directory).
final class MetricsDevice: Sendable {
    static let folderID = "Docs"

    let folder: URL
    let metrics: DaemonMetrics
    private let daemon: DaemonConfiguration
    private let configuration: FolderConfiguration
    private let backend: any StorageBackend
    private let logger: Logger
    private let running: Running

    /// The service now and the task running it.
    private final class Running: Sendable {
        let current = Mutex<(service: FolderService, task: Task<Void, Never>)?>(nil)
        var service: FolderService? { current.withLock { $0?.service } }
    }

    init(name: String, base: URL, backend: any StorageBackend) throws {
        folder = base.appendingPathComponent("\(name)-folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        configuration = FolderConfiguration(id: Self.folderID, path: folder)
        daemon = DaemonConfiguration(device: name, stateDirectory: base.appendingPathComponent("\(name)-state"),
                                     socketPath: base.appendingPathComponent("\(name).sock"),
                                     backend: BackendConfiguration(url: base.appendingPathComponent("backend")), folders: [configuration])
        self.backend = backend
        var logger = Logger(label: "test.metrics.\(name)")
        logger.logLevel = .error
        self.logger = logger
        let running = Running()
        self.running = running
        metrics = DaemonMetrics(folders: { running.service.map { [$0] } ?? [] })
        try start()
    }

    /// Makes the folder's service (a new engine) and runs it.
    func start() throws {
        let service = try FolderService(folder: configuration, daemon: daemon, backend: backend, logger: logger)
        let task = Task { do { try await service.run() } catch {} }
        running.current.withLock { $0 = (service, task) }
    }

    /// Stops the folder's service and waits until its run has ended.
    func stop() async {
        guard let (service, task) = running.current.withLock({ current in defer { current = nil }; return current }) else { return }
        service.stop()
        await service.stopped()
        await task.value
    }

    var service: FolderService? { running.service }

    /// Settled (nothing pending, nothing held back by the watcher) and idle.
    var isSettled: Bool {
        guard let service else { return false }
        return service.isSettled && service.status().state == .idle
    }

    func exposition() -> MetricsExposition { MetricsExposition(metrics.exposition()) }
}
