import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncWatcher
import Foundation
import Logging
import ServiceLifecycle

/// One synced folder as a service: its watcher feeding its engine, and the backend's
/// notifications for its zone. Stops when the service group shuts down gracefully.
final class FolderService: Service, Sendable {
    let engine: FolderEngine
    let watcher: InotifyWatcher
    let backend: any StorageBackend
    let zone: ZoneID
    let logger: Logger

    init(folder: FolderConfiguration, daemon: DaemonConfiguration, backend: any StorageBackend, logger: Logger) throws {
        let zone: ZoneID
        do { zone = try ZoneID(validating: folder.id) } catch {
            throw DaemonError("folder id \(folder.id.debugDescription) cannot be a zone name: \(error.message)")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw DaemonError("folder \(folder.path.path) does not exist or is not a directory; create it or fix the path")
        }
        let direction: EngineConfiguration.Direction = switch folder.mode {
        case .sendOnly: .sendOnly
        case .receiveOnly: .receiveOnly
        case .mirror, .onDemand: .both
        }
        let configuration = EngineConfiguration(
            zone: zone, root: folder.path,
            stateDirectory: daemon.stateDirectory.appendingPathComponent("folders").appendingPathComponent(folder.id),
            device: daemon.device, conflictPolicy: folder.conflictPolicy, direction: direction,
            onDemand: folder.mode == .onDemand, maxFileSize: folder.maxFileSize, keepVersionsDays: folder.keepVersionsDays)
        self.engine = try FolderEngine(configuration: configuration, backend: backend, logger: logger)
        // The engine's own temporary files are never news to it, nor is one it moved into place.
        self.watcher = InotifyWatcher(root: folder.path, logger: logger, ignoredFilePrefix: IgnoreRules.temporaryFilePrefix,
                                      ownRenamePrefix: FolderEngine.ownTemporaryPrefix)
        self.backend = backend
        self.zone = zone
        self.logger = logger
    }

    func run() async throws {
        let events = try watcher.start()
        let engine = self.engine, zone = self.zone
        let notifications = backend.changeNotifications()
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await engine.run() }
                group.addTask {
                    for await event in events { engine.noteLocal([event]) }
                }
                group.addTask {
                    for await notification in notifications where notification.zones.contains(zone) {
                        engine.noteRemoteChange()
                    }
                }
                await group.next()
                group.cancelAll()
            }
        }
        watcher.stop()
    }

    /// The engine's status, with the watcher's latest warning (a queue overflow, a watch limit
    /// reached) shown as a problem of the folder itself.
    func status() -> FolderStatus {
        var status = engine.status()
        if let warning = watcher.warnings.last {
            status.problems.insert(ItemProblem(path: ".", message: "watcher: \(warning) (the folder was scanned again)"), at: 0)
        }
        return status
    }

    /// Settled: the engine has nothing to do and the watcher has nothing held back.
    var isSettled: Bool { watcher.isQuiet && engine.isSettled }
}
