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
/// its plain zone is started again in its encrypted zone once its plain zone holds nothing:
/// one never synced, or one whose zone was moved (`zoneMoved`, by the device that ran
/// `docs-status encryption enable`) — its files stay and are matched with the encrypted
/// zone's records, not downloaded again. One whose plain zone holds records keeps syncing as
/// it is, and says so, until it is moved (`move`, FolderGate+Move).
final class FolderGate: Service, Sendable {
    let keys: AccountKeyService
    /// Where started folders go (set once the daemon made it).
    let folderSet = Mutex<FolderSet?>(nil)
    let daemon: DaemonConfiguration
    let backend: any StorageBackend
    let logger: Logger
    /// The folders not started, with why.
    let waiting = Mutex<[(folder: FolderConfiguration, reason: String)]>([])
    /// Folders of an encrypted account that sync plain: what they had before it was.
    private let plain = Mutex<[String]>([])
    private let kicks = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    /// One turn at a time: two turns stopping and starting the same folder would start it twice.
    let turns = AsyncLock()

    /// What a folder gets now.
    enum Start {
        case plain
        case encrypted(zone: ZoneID, keys: FolderKeySource)
        case wait(String)
    }

    /// The name of the file that marks a folder's state directory as an encrypted folder's.
    static let encryptedMarker = "encrypted"
    /// Why a folder whose index is of its plain zone waits.
    static let syncedPlain = "it synced before the account was encrypted; it starts in its encrypted zone once it is moved there ('docs-status encryption enable PATH' on a device that syncs it)"

    init(keys: AccountKeyService, daemon: DaemonConfiguration, backend: any StorageBackend, logger: Logger) {
        self.keys = keys
        self.daemon = daemon
        self.backend = backend
        self.logger = logger
    }

    /// Folders started later are added to `set`.
    func startingInto(_ set: FolderSet) { folderSet.withLock { $0 = set } }

    /// The key-value stores, told at every turn how they sync (SPEC §13).
    private let keyValues = Mutex<KeyValueService?>(nil)

    /// Tells `service`'s stores at every turn how they sync.
    func followingWith(_ service: KeyValueService) { keyValues.withLock { $0 = service } }

    /// The keys of shared encrypted folders, brought up to date at every turn.
    private let shareKeys = Mutex<ShareKeyService?>(nil)

    /// The key source of the encrypted share `share` (waiting, without the service).
    func shareKeySource(for share: ShareName) -> FolderKeySource? { shareKeys.withLock { $0 }?.source(for: share) }

    /// Brings `service` up to date at every turn.
    func sharingKeysWith(_ service: ShareKeyService) {
        shareKeys.withLock { $0 = service }
        service.wantsTurn.withLock { $0 = { [weak self] in self?.kick() } }
    }

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
                // A move begun here drops the plain zone's index; one cut short before it did
                // drops it now.
                guard FolderMove.load(in: state) != nil else { return .wait(Self.syncedPlain) }
                dropIndex(of: folder)
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
            source.whenKeysAreMissing { [weak self] in self?.kick() }
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
                    // A turn every 2 s while something waits (a folder, the server's answer,
                    // a move's next step, a folder told its zone moved, a shared folder's keys), every minute otherwise.
                    var elapsed = 0
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .seconds(1))
                        elapsed += 1
                        var settled = false
                        switch self.keys.standing {
                        case .plainAccount?, .trusted?: settled = true
                        default: break
                        }
                        let pending = !self.waiting.withLock { $0.isEmpty } || !settled || self.movesPending
                            || self.shareKeys.withLock({ $0 })?.dueForTurn == true
                        if elapsed >= (pending ? 2 : 60) {
                            elapsed = 0
                            self.kick()
                        }
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
        await finishMoves()
        await followMovedShares()
        await keyValues.withLock({ $0 })?.followEncryption()
        if let shareKeys = shareKeys.withLock({ $0 }) {
            let running: [FolderService] = folderSet.withLock { $0 }?.all ?? []
            let owned: [ZoneID] = running.filter { $0.engine.configuration.share == nil && $0.engine.configuration.encryption != nil }.map(\.zone)
            await shareKeys.turn(owned: owned)
        }
    }

    /// Starts every waiting folder that can start now.
    func startWhatCan() {
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

    /// The folders running in plain zones whose zone holds records on the server: they keep
    /// syncing plain until they are moved (`move`).
    func plainFoldersWithRecords() async throws(SyncError) -> [FolderService] {
        guard let set = folderSet.withLock({ $0 }) else { return [] }
        var found: [FolderService] = []
        for folder in set.all where folder.engine.configuration.share == nil && folder.engine.configuration.encryption == nil {
            if try await Self.content(of: folder.zone, on: backend) == .records { found.append(folder) }
        }
        return found
    }

    /// What a plain zone holds on the server.
    enum ZoneContent: Equatable {
        /// No such zone, or only a redirect (moved): nothing plain to carry.
        case none
        /// The zone, without a live record (perhaps with Recently Deleted entries).
        case empty
        /// At least one live record.
        case records
    }

    /// What `zone` holds on `backend` (its changes read until a live record is found).
    static func content(of zone: ZoneID, on backend: any StorageBackend) async throws(SyncError) -> ZoneContent {
        var token: ChangeToken?
        while true {
            let page: ChangeSet
            do { page = try await backend.fetchChanges(in: zone, since: token, limit: 1_000) } catch where [.zoneNotFound, .zoneMoved].contains(error.code) {
                return .none
            }
            if !page.changed.isEmpty { return .records }
            guard page.moreComing else { return .empty }
            token = page.token
        }
    }

    /// Removes a folder's index (of its plain zone); its files and versions stay.
    func dropIndex(of folder: FolderConfiguration) {
        let state = FolderService.stateDirectory(of: folder, in: daemon)
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(at: state.appendingPathComponent("index.sqlite" + suffix))
        }
    }

    /// Once the account is encrypted: every folder running plain whose plain zone holds no
    /// live record is stopped, its index (of the plain zone) dropped, and started again as
    /// the standing allows (encrypted, or waiting); its files stay as they are. Where that
    /// zone still exists (Recently Deleted, history) and this device is trusted, the restart
    /// is a move (`FolderMove`): the zone is carried and purged, not left behind in the
    /// clear. So is a waiting folder whose index is of such a plain zone.
    private func followEncryption() async {
        switch keys.standing {
        case .plainAccount?, nil: return
        default: break
        }
        var trusted = false
        if case .trusted? = keys.standing { trusted = true }
        for folder in waiting.withLock({ $0.filter { $0.reason == Self.syncedPlain }.map(\.folder) }) {
            guard let zone = try? FolderService.zone(of: folder), let content = try? await Self.content(of: zone, on: backend), content != .records else { continue }
            let moves = restart(folder, from: zone, moving: trusted && content == .empty)
            waiting.withLock { waiting in
                if let index = waiting.firstIndex(where: { $0.folder.path == folder.path }) { waiting[index].reason = moves ? Self.moving : Self.restarting }
            }
        }
        guard let set = folderSet.withLock({ $0 }) else { return }
        let running = set.all.filter { $0.engine.configuration.share == nil && $0.engine.configuration.encryption == nil }
        var keep: [FolderService] = []
        for folder in running {
            let content: ZoneContent
            do { content = try await Self.content(of: folder.zone, on: backend) } catch {
                logger.info("cannot look at the folder's plain zone now; trying again", metadata: ["path": "\(folder.root.path)", "error": "\(error)"])
                keep.append(folder)
                continue
            }
            if content == .records {
                keep.append(folder)
                continue
            }
            await set.remove(folder)
            let moves = restart(folder.folder, from: folder.zone, moving: trusted && content == .empty)
            logger.notice("the account is encrypted: the folder starts again in its encrypted zone", metadata: ["path": "\(folder.root.path)", "moving": "\(moves)"])
            waiting.withLock { waiting in
                if !waiting.contains(where: { $0.folder.path == folder.folder.path }) { waiting.append((folder.folder, moves ? Self.moving : Self.restarting)) }
            }
        }
        plain.withLock { $0 = keep.map { "\($0.root.path): synced before the account was encrypted; it syncs plain until it is moved ('docs-status encryption enable \($0.root.path)')" } }
    }

    /// Why a folder restarting in its encrypted zone waits a moment.
    static let restarting = "starting again in its encrypted zone"

    /// Drops `folder`'s index of the plain zone `zone`, noting a move first when `moving`;
    /// returns whether it noted one (it could not: the folder restarts without).
    private func restart(_ folder: FolderConfiguration, from zone: ZoneID, moving: Bool) -> Bool {
        var noted = false
        if moving {
            do {
                try FolderMove(from: zone.name).store(in: FolderService.stateDirectory(of: folder, in: daemon))
                noted = true
            } catch {
                logger.error("cannot note the folder's move; it starts in its encrypted zone without carrying the plain one", metadata: ["path": "\(folder.path.path)", "error": "\(error)"])
            }
        }
        dropIndex(of: folder)
        return noted
    }
}
