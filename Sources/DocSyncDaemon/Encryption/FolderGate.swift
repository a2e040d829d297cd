import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Starts the account's own folders as its encryption allows (SPEC §13), and holds back
/// those it does not yet: while the server has not said whether the account is encrypted
/// (a device that never saw it), while this device waits for approval, and while what the
/// server shows cannot be trusted. Looks at the key directory again whenever it changes
/// (the backend's notifications), every 2 s while something waits, every minute otherwise.
///
/// When the account becomes encrypted (here or on another device), each folder running in
/// its plain zone is started again in its encrypted zone — if nothing was ever saved to
/// the plain zone. One that has records there keeps syncing as it is and says so: moving
/// a syncing folder into an encrypted zone is not in this version.
final class FolderGate: Service, Sendable {
    let keys: AccountKeyService
    /// Where started folders go (set once the daemon made it).
    private let folderSet = Mutex<FolderSet?>(nil)
    let daemon: DaemonConfiguration
    let backend: any StorageBackend
    let logger: Logger
    /// The folders not started, with why.
    private let waiting = Mutex<[(folder: FolderConfiguration, reason: String)]>([])
    /// Folders of an encrypted account that sync plain: what they had before it was.
    private let plain = Mutex<[String]>([])
    private let kicks = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    /// One turn at a time: two turns stopping and starting the same folder would start it twice.
    private let turns = AsyncLock()

    /// What a folder gets now.
    enum Start {
        case plain
        case encrypted(zone: ZoneID, keys: FolderKeySource)
        case wait(String)
    }

    /// The name of the file that marks a folder's state directory as an encrypted folder's.
    static let encryptedMarker = "encrypted"
    /// Why a folder whose index is of its plain zone waits.
    static let syncedPlain = "it synced before the account was encrypted (moving a syncing folder into an encrypted zone is not available in this version)"

    init(keys: AccountKeyService, daemon: DaemonConfiguration, backend: any StorageBackend, logger: Logger) {
        self.keys = keys
        self.daemon = daemon
        self.backend = backend
        self.logger = logger
    }

    /// Folders started later are added to `set`.
    func startingInto(_ set: FolderSet) { folderSet.withLock { $0 = set } }

    /// The folders waiting, by path, with why.
    var waitingFolders: [(path: String, reason: String)] { waiting.withLock { $0.map { ($0.folder.path.path, $0.reason) } } }

    /// The folders of an encrypted account that sync plain, "PATH: why".
    var plainFolders: [String] { plain.withLock { $0 } }

    /// Asks the gate to look at the key directory again now.
    func kick() { kicks.continuation.yield() }

    /// How `folder` starts given the account's standing now.
    func start(of folder: FolderConfiguration) throws -> Start {
        switch keys.standing {
        case .plainAccount?:
            return .plain
        case .trusted?:
            let state = FolderService.stateDirectory(of: folder, in: daemon)
            let marker = state.appendingPathComponent(Self.encryptedMarker)
            let hasIndex = FileManager.default.fileExists(atPath: state.appendingPathComponent("index.sqlite").path)
            if hasIndex && !FileManager.default.fileExists(atPath: marker.path) {
                return .wait(Self.syncedPlain)
            }
            guard let encryption = keys.encryption(of: try FolderService.zone(of: folder)) else { return .wait("the account keys are not available") }
            try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
            if !FileManager.default.fileExists(atPath: marker.path) {
                try Data(encryption.zone.name.utf8).write(to: marker)
            }
            return .encrypted(zone: encryption.zone, keys: encryption.keys)
        case .awaitingApproval?:
            return .wait("this device waits for approval (docs-status encryption)")
        case .refused?:
            return .wait("the account's keys cannot be trusted on this device (docs-status encryption)")
        case nil:
            // A refused token sends and fetches nothing either way: the folder starts (in its
            // plain zone, where nothing can reach) so it shows "not authenticated"; once the
            // server answers, a folder of an encrypted account moves to its encrypted zone.
            if keys.tokenRefused { return .plain }
            return .wait("waiting for the server to say whether the account is encrypted")
        }
    }

    /// The service of `folder` when it can start now, else `nil` (it waits).
    func service(for folder: FolderConfiguration) throws -> FolderService? {
        switch try start(of: folder) {
        case .plain:
            return try FolderService(folder: folder, daemon: daemon, backend: backend, logger: logger)
        case let .encrypted(zone, source):
            let service = try FolderService(folder: folder, daemon: daemon, backend: backend, logger: logger, encryption: (zone, source))
            Task { [keys] in try? await keys.recordFirstEpoch(of: zone) }
            return service
        case let .wait(reason):
            waiting.withLock { $0.append((folder, reason)) }
            logger.notice("the folder waits", metadata: ["path": "\(folder.path.path)", "reason": "\(reason)"])
            return nil
        }
    }

    func run() async throws {
        let notifications = backend.changeNotifications()
        let directoryZone = KeyDirectoryClient.store.zone
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await notification in notifications where notification.zones.contains(directoryZone) { self.kick() }
                }
                group.addTask {
                    while !Task.isCancelled {
                        let pending = !self.waiting.withLock { $0.isEmpty }
                        var settled = false
                        switch self.keys.standing {
                        case .plainAccount?, .trusted?: settled = true
                        default: break
                        }
                        try? await Task.sleep(for: pending || !settled ? .seconds(2) : .seconds(60))
                        self.kick()
                    }
                }
                group.addTask {
                    for await _ in self.kicks.stream {
                        if Task.isCancelled { return }
                        await self.turn(refreshing: true)
                    }
                }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// One turn, alone: the key directory read again (with `refreshing`), the folders moved
    /// into their encrypted zones when the account became encrypted, every waiting folder
    /// that can start started.
    func turn(refreshing: Bool) async {
        await turns.acquire()
        defer { turns.release() }
        if refreshing { _ = try? await keys.refresh() }
        await followEncryption()
        startWhatCan()
    }

    /// Starts every waiting folder that can start now.
    private func startWhatCan() {
        let candidates = waiting.withLock { waiting in
            let all = waiting
            waiting = []
            return all.map(\.folder)
        }
        for folder in candidates {
            do {
                guard let service = try service(for: folder) else { continue }
                guard let set = folderSet.withLock({ $0 }), set.add(service, client: nil) else { return }
                logger.notice("the folder starts", metadata: ["path": "\(folder.path.path)", "zone": "\(service.zone)"])
            } catch {
                waiting.withLock { $0.append((folder, "\(error)")) }
                logger.error("the folder cannot start", metadata: ["path": "\(folder.path.path)", "error": "\(error)"])
            }
        }
    }

    /// The folders running in plain zones whose zone holds records on the server: they
    /// cannot follow the account into encryption in this version.
    func plainFoldersWithRecords() async throws(SyncError) -> [FolderService] {
        guard let set = folderSet.withLock({ $0 }) else { return [] }
        var found: [FolderService] = []
        for folder in set.all where folder.engine.configuration.share == nil && folder.engine.configuration.encryption == nil {
            if try await zoneHoldsRecords(folder.zone) { found.append(folder) }
        }
        return found
    }

    /// Whether `zone` holds a live record on the server.
    func zoneHoldsRecords(_ zone: ZoneID) async throws(SyncError) -> Bool {
        try await Self.zoneHoldsRecords(zone, on: backend)
    }

    /// Whether `zone` holds a live record on `backend` (its changes read until one is found).
    static func zoneHoldsRecords(_ zone: ZoneID, on backend: any StorageBackend) async throws(SyncError) -> Bool {
        var token: ChangeToken?
        while true {
            let page: ChangeSet
            do { page = try await backend.fetchChanges(in: zone, since: token, limit: 1_000) } catch where error.code == .zoneNotFound {
                return false
            }
            if !page.changed.isEmpty { return true }
            guard page.moreComing else { return false }
            token = page.token
        }
    }

    /// Removes a folder's index (of its plain zone); its files and versions stay.
    private func dropIndex(of folder: FolderConfiguration) {
        let state = FolderService.stateDirectory(of: folder, in: daemon)
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(at: state.appendingPathComponent("index.sqlite" + suffix))
        }
    }

    /// Once the account is encrypted: every folder running plain whose plain zone holds no
    /// record is stopped, its index (of the plain zone) dropped, and started again as the
    /// standing allows (encrypted, or waiting); its files stay as they are. So is a waiting
    /// folder whose index is of a plain zone that holds no record.
    private func followEncryption() async {
        switch keys.standing {
        case .plainAccount?, nil: return
        default: break
        }
        for folder in waiting.withLock({ $0.filter { $0.reason == Self.syncedPlain }.map(\.folder) }) {
            guard let zone = try? FolderService.zone(of: folder), (try? await zoneHoldsRecords(zone)) == false else { continue }
            dropIndex(of: folder)
            waiting.withLock { waiting in
                if let index = waiting.firstIndex(where: { $0.folder.path == folder.path }) { waiting[index].reason = "starting again in its encrypted zone" }
            }
        }
        guard let set = folderSet.withLock({ $0 }) else { return }
        let running = set.all.filter { $0.engine.configuration.share == nil && $0.engine.configuration.encryption == nil }
        guard !running.isEmpty else { return }
        let keep: [FolderService]
        do { keep = try await plainFoldersWithRecords() } catch {
            logger.info("cannot look at the folders' plain zones now; trying again", metadata: ["error": "\(error)"])
            return
        }
        plain.withLock { $0 = keep.map { "\($0.root.path): synced before the account was encrypted; it stays plain (moving a syncing folder into an encrypted zone is not available in this version)" } }
        for folder in running where !keep.contains(where: { $0 === folder }) {
            await set.remove(folder)
            dropIndex(of: folder.folder)
            logger.notice("the account is encrypted: the folder starts again in its encrypted zone", metadata: ["path": "\(folder.root.path)"])
            waiting.withLock { waiting in
                if !waiting.contains(where: { $0.folder.path == folder.folder.path }) { waiting.append((folder.folder, "starting again in its encrypted zone")) }
            }
        }
    }
}
