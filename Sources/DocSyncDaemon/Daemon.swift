import DocSyncControl
import DocSyncCore
import DocSyncEngine
import DocSyncHTTP
import DocSyncStorage
import DocSyncWatcher
import Foundation
import Logging
import ServiceLifecycle

/// The daemon: one engine and one watcher per folder, the key-value stores
/// (`KeyValueService`), the control socket, all inside one
/// `ServiceGroup` that stops on SIGTERM or SIGINT — each folder finishes its current step
/// (every index change is one transaction), the socket is removed, and `run` returns.
public enum Daemon {
    public static func run(configuration: DaemonConfiguration, logger: Logger) async throws {
        let backend = try makeBackend(configuration.backend)
        TransferRateLimit.upload.bytesPerSecond = configuration.uploadLimit
        TransferRateLimit.download.bytesPerSecond = configuration.downloadLimit
        try FileManager.default.createDirectory(at: configuration.stateDirectory, withIntermediateDirectories: true)
        let deviceKeys = try DeviceKeyFile.loadOrCreate(in: configuration.stateDirectory, logger: logger)
        let accountKeys = AccountKeyService(device: deviceKeys, deviceName: configuration.device, stateDirectory: configuration.stateDirectory,
                                            backend: backend, logger: logger)
        _ = await accountKeys.start()
        let gate = FolderGate(keys: accountKeys, daemon: configuration, backend: backend, logger: logger)
        let shareKeys = ShareKeyService(keys: accountKeys, backend: backend, logger: logger)
        gate.sharingKeysWith(shareKeys)
        var folders: [FolderService] = []
        var shareClients: [HTTPBackend] = []
        // The shares docs-status accept attached before, besides the configured folders.
        let attached = try AttachedShares.load(from: configuration.stateDirectory).folders(besides: configuration.folders)
        for folder in configuration.folders + attached {
            if let share = folder.share {
                let client = try await attach(share, at: folder, through: backend, configuration: configuration, logger: logger)
                shareClients.append(client)
                folders.append(try FolderService(folder: folder, daemon: configuration, backend: client, logger: logger,
                                                 encryption: ShareKeyService.isEncrypted(share) ? (share.zone, shareKeys.source(for: share)) : nil))
            } else if let service = try gate.service(for: folder) {
                folders.append(service)
            }
        }
        let folderSet = FolderSet(folders)
        let daemonMetrics = DaemonMetrics(folders: { folderSet.all })
        gate.startingInto(folderSet)
        let keyValues = KeyValueService(
            stateDirectory: configuration.stateDirectory, backend: backend, device: configuration.device,
            account: KeyValueService.account(of: configuration.backend), keys: accountKeys, logger: logger)
        gate.followingWith(keyValues)
        let latestStatuses = LatestFolderStatuses()
        let events = try EventLog(url: configuration.stateDirectory.appendingPathComponent("events.sqlite"))
        let page = WebPageState(listen: configuration.webListen)
        let handler = DaemonControlHandler(configuration: configuration, folderSet: folderSet, backend: backend, logger: logger,
                                           keyValues: keyValues, deviceKeyFingerprint: deviceKeys.publicKeys.fingerprint,
                                           accountKeys: accountKeys, folderGate: gate, shareKeys: shareKeys, events: events, page: page)
        let metricsToken = try MetricsTokenFile.loadOrCreate(in: configuration.stateDirectory, logger: logger)
        let web = WebService(page: page, routes: WebRoutes(handler: handler, page: page, latest: latestStatuses,
                                                           metrics: { daemonMetrics.exposition() }, metricsToken: metricsToken),
                             logger: logger)
        // Bound before anything starts: a second daemon on the same socket stops here.
        let server = try ControlServer(socketPath: configuration.socketPath.path, handler: handler, logger: logger)
        let group = ServiceGroup(
            services: [folderSet, gate, keyValues as any Service, ControlServerService(server: server),
                       NotificationService(configuration: configuration, latest: latestStatuses, logger: logger),
                       EventRecorder(log: events, interval: .milliseconds(500), statuses: { folderSet.all.map { $0.status() } },
                                     latest: latestStatuses, logger: logger),
                       web],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        logger.info("docsyncd started", metadata: [
            "device": "\(configuration.device)", "fingerprint": "\(deviceKeys.publicKeys.fingerprint)",
            "backend": "\(configuration.backend.url.absoluteString)",
            "folders": "\(folders.map(\.root.path))", "socket": "\(configuration.socketPath.path)",
        ])
        try await group.run()
        for client in shareClients + folderSet.clients { await client.shutdown() }
        await shareKeys.shutdown()
        if let client = backend as? HTTPBackend { await client.shutdown() }
        logger.info("docsyncd stopped")
    }
}

extension Daemon {
    /// The backend of a folder attached to `share` (SPEC §11): the owner's zones through the
    /// account's docsync-server. An invitation not answered yet is accepted (attaching a
    /// share accepts it for the account); a share that cannot be looked up now (the server
    /// unreachable) is attached all the same and asked again by the engine.
    static func attach(_ share: ShareName, at folder: FolderConfiguration, through backend: any StorageBackend,
                       configuration: DaemonConfiguration, logger: Logger) async throws -> HTTPBackend {
        guard let account = backend as? HTTPBackend else {
            throw DaemonError("\(folder.path.path) is attached to the share \(share), and shares live on a docsync-server; this daemon's backend is \(configuration.backend.url.absoluteString)")
        }
        do {
            switch try await account.shareEntry(share)?.status {
            case .invited?:
                _ = try await account.answerShare(share, .accept)
                logger.notice("accepted the share", metadata: ["share": "\(share)", "path": "\(folder.path.path)"])
            case .accepted?:
                break
            case let status?:
                logger.warning("the share has ended; the folder is kept as it is and held", metadata: ["share": "\(share)", "status": "\(status.rawValue)"])
            case nil:
                logger.warning("no such share is offered to this account; the folder is held until it is", metadata: ["share": "\(share)"])
            }
        } catch {
            logger.warning("cannot look the share up now; attaching it all the same", metadata: ["share": "\(share)", "error": "\(error)"])
        }
        return try account.reaching(owner: share.owner)
    }
}

/// A failure that stops the daemon from starting, with what to do about it.
public struct DaemonError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
