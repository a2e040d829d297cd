import DocSyncCore
import DocSyncEngine
import DocSyncFUSE
import DocSyncStorage
import DocSyncWatcher
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// One synced folder as a service: its watcher feeding its engine, and the backend's
/// notifications for its zone. Stops when the service group shuts down gracefully.
///
/// The watcher follows the folder's root: when the root goes (an unmounted disk, a folder
/// moved away) and comes back as another directory, a new watcher is started on it and the
/// engine compares the whole folder again. Meanwhile the engine holds the folder (SPEC §4a).
final class FolderService: Service, Sendable {
    let engine: FolderEngine
    let backend: any StorageBackend
    let zone: ZoneID
    let root: URL
    let logger: Logger
    /// The watcher of the root directory now there (`nil` while there is none).
    private let watching = Mutex<InotifyWatcher?>(nil)
    /// Finished by `stop()`: ends `run` as a graceful shutdown would.
    private let stopping = AsyncStream<Void>.makeStream()
    /// Finished when `run` has ended.
    private let ended = AsyncStream<Void>.makeStream()
    /// The folder's configuration, to start it again (encrypted, SPEC §13).
    let folder: FolderConfiguration
    /// For an on-demand folder (SPEC §14): the directory the engine syncs, served at `root`
    /// through FUSE.
    let content: URL?
    /// The on-demand folder's mount while mounted.
    private let mounted = Mutex<FuseMount?>(nil)
    /// Why the on-demand folder is not mounted, shown as a problem of the folder.
    private let mountProblem = Mutex<String?>(nil)
    /// Whether the on-demand folder waits for its missing path (SPEC §4a): held.
    private let mountHeld = Mutex(false)
    /// The documents that were not local when the on-demand folder was detached (its share
    /// ended), listed by its status.
    private let leftRemote = Mutex<[String]>([])

    /// `encryption`, for a folder of an encrypted account (SPEC §13): the opaque zone it
    /// syncs with and its keys.
    /// `followingMove`: a share attached again to the zone its owner moved it to (SPEC §13),
    /// whose files are already here: they are matched with the records there, not refused
    /// as a folder that is not empty.
    init(folder: FolderConfiguration, daemon: DaemonConfiguration, backend: any StorageBackend, logger: Logger,
         encryption: (zone: ZoneID, keys: FolderKeySource)? = nil, followingMove: Bool = false) throws {
        var zone = try Self.zone(of: folder)
        if let encryption { zone = encryption.zone }
        let direction: EngineConfiguration.Direction = switch folder.mode {
        case .sendOnly: .sendOnly
        case .receiveOnly: .receiveOnly
        case .mirror, .onDemand: .both
        }
        let stateDirectory = Self.stateDirectory(of: folder, in: daemon)
        let contentDirectory = OnDemandMountPoint.contentDirectory(in: stateDirectory)
        let contentExisted = FileManager.default.fileExists(atPath: contentDirectory.path)
        let content = folder.mode == .onDemand ? contentDirectory : nil
        if let content { try FileManager.default.createDirectory(at: content, withIntermediateDirectories: true) }
        var configuration = EngineConfiguration(
            zone: zone, root: content ?? folder.path,
            stateDirectory: stateDirectory,
            device: daemon.device, conflictPolicy: folder.conflictPolicy, direction: direction,
            onDemand: folder.mode == .onDemand, maxFileSize: folder.maxFileSize, keepVersionsDays: folder.keepVersionsDays,
            textMerge: folder.mergePatterns.isEmpty ? nil : try TextMergeRule(patterns: folder.mergePatterns, maxSize: folder.mergeMaxSize),
            deleteBrake: folder.deleteBrake)
        configuration.share = folder.share
        configuration.encryption = encryption?.keys
        self.engine = try FolderEngine(configuration: configuration, backend: backend, logger: logger)
        let neverSynced = engine.indexedItemCount() == 0
        if let share = folder.share, neverSynced, !followingMove {
            try Self.prepareFirstAttach(of: share, at: folder.path)
        }
        // A mount a killed daemon left answers ENOTCONN: cleared first, the directory beneath shows.
        if content != nil || contentExisted { FuseMount.clearStale(at: folder.path.path, logger: logger) }
        // A folder never synced must exist; one synced before is held while it is missing.
        if RootIdentity.of(folder.path.path) == nil, neverSynced {
            throw DaemonError("folder \(folder.path.path) does not exist or is not a directory; create it or fix the path")
        }
        // Between mirror and on-demand (SPEC §14): refused while files are open or space is
        // short; to on-demand, the files are renamed into the content directory now.
        let change = FolderModeSwitch.detect(onDemand: content != nil, contentExists: contentExisted, neverSynced: neverSynced)
        if let change, RootIdentity.of(folder.path.path) != nil {
            try FolderModeSwitch.check(change, root: folder.path, content: contentDirectory, engine: engine)
            if change == .toOnDemand {
                try? FileManager.default.removeItem(at: FolderModeSwitch.downloadsMarker(in: stateDirectory))
                OnDemandMountPoint.copyMarker(from: folder.path, to: contentDirectory)
                try OnDemandMountPoint.moveEntries(from: folder.path, into: contentDirectory, logger: logger)
                do throws(SyncError) {
                    try engine.unpinAll()
                    try engine.refreshPlaceholders()
                } catch {
                    throw DaemonError("cannot prepare \(folder.path.path) to be on demand: \(error.message)")
                }
                logger.notice("the folder is on demand now; its files were moved into its cache", metadata: ["path": "\(folder.path.path)"])
            } else {
                FileManager.default.createFile(atPath: FolderModeSwitch.downloadsMarker(in: stateDirectory).path, contents: nil)
            }
        }
        self.backend = backend
        self.zone = zone
        self.root = folder.path
        self.folder = folder
        self.logger = logger
        self.content = content
    }

    /// Ends `run` (the engine finishes its current step); for a folder started again
    /// another way. Its index stays closed only once this service is released.
    func stop() { stopping.continuation.finish() }

    /// Returns once `run` has ended; call it only on a folder whose `run` was started.
    func stopped() async { for await _ in ended.stream {} }

    /// The zone a folder's id names (its plain zone); a `DaemonError` for an id that cannot be one.
    static func zone(of folder: FolderConfiguration) throws -> ZoneID {
        do throws(SyncError) {
            let zone = try ZoneID(validating: folder.zoneName)
            if zone.isKeyValueStore { throw SyncError(.invalidArguments, ZoneID.folderProblem(with: zone.name) ?? "") }
            return zone
        } catch {
            throw DaemonError("folder id \(folder.id.debugDescription) cannot be a zone name: \(error.message)")
        }
    }

    /// Where the folder's index and versions live: `folders/ID`, or `shares/OWNER/ID` for
    /// a share (never inside another folder's).
    static func stateDirectory(of folder: FolderConfiguration, in daemon: DaemonConfiguration) -> URL {
        guard let share = folder.share else { return daemon.stateDirectory.appendingPathComponent("folders").appendingPathComponent(folder.id) }
        return daemon.stateDirectory.appendingPathComponent("shares").appendingPathComponent(share.owner).appendingPathComponent(share.zone.name)
    }

    /// A share attaches to an absent folder (made here) or an empty one (SPEC §11): merging a
    /// private folder in would upload its files into the owner's.
    static func prepareFirstAttach(of share: ShareName, at root: URL) throws {
        guard try checkAttachable(share, at: root) else { return }
        do { try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true) } catch {
            throw DaemonError("cannot make \(root.path) for the share \(share): \(error.localizedDescription)")
        }
    }

    /// Whether `share` may attach at `root`: true when it is absent (to be made), false when
    /// it is an empty directory; a `DaemonError` saying why not otherwise.
    static func checkAttachable(_ share: ShareName, at root: URL) throws -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory) else { return true }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        guard isDirectory.boolValue, entries.allSatisfy({ $0 == IgnoreRules.rootMarkerName }) else {
            throw DaemonError("\(root.path) is not empty: a share attaches to an absent or empty folder, since merging a private folder in would upload its files into \(share.owner)'s; choose another path")
        }
        return false
    }

    func run() async throws {
        defer { ended.continuation.finish() }
        if let content { return await runMounted(content: content) }
        try bringBackContent()
        downloadWhatIsNotLocal()
        // A folder that is there is watched before anything else, and a watch that cannot
        // start (the watch limit, overlapping folders) stops the daemon, as the log says.
        let identity = RootIdentity.of(root.path)
        let first: (RootIdentity, AsyncStream<WatchEvent>)? = try identity.map { ($0, try startWatcher()) }
        let engine = self.engine, zone = self.zone, stop = stopping.stream
        let notifications = changeNotifications()
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await engine.run() }
                group.addTask { await self.followRoot(from: first) }
                group.addTask { await Self.forward(notifications, of: zone, to: engine) }
                group.addTask { for await _ in stop {} }
                await group.next()
                group.cancelAll()
            }
        }
        stopWatcher()
    }

    /// Tells `engine` of every notification that names `zone`, until they end.
    private static func forward(_ notifications: AsyncStream<ChangeNotification>, of zone: ZoneID, to engine: FolderEngine) async {
        for await notification in notifications where notification.zones.contains(zone) { engine.noteRemoteChange() }
    }

    /// Feeds the watcher's events to the engine, and once a second looks whether the root is
    /// still the directory watched; when it is gone or another, the watcher is replaced.
    private func followRoot(from first: (RootIdentity, AsyncStream<WatchEvent>)?) async {
        var watched = first?.0
        var feeding = first.map { feed($0.1) }
        var failedOn: RootIdentity?
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            let current = RootIdentity.of(root.path)
            guard current != watched else { continue }
            if watched != nil {
                feeding?.cancel()
                feeding = nil
                stopWatcher()
                watched = nil
                logger.notice("the folder's root is gone or was replaced; watching stopped", metadata: ["path": "\(root.path)"])
            }
            guard let current, current != failedOn else { continue }
            do {
                feeding = feed(try startWatcher())
                watched = current
                failedOn = nil
                logger.notice("watching the folder's root again", metadata: ["path": "\(root.path)"])
                engine.requestSync()  // whatever changed while it was not watched
            } catch {
                failedOn = current
                logger.error("cannot watch the folder's root", metadata: ["path": "\(root.path)", "error": "\(error.message)"])
            }
        }
        feeding?.cancel()
    }

    private func feed(_ events: AsyncStream<WatchEvent>) -> Task<Void, Never> {
        let engine = self.engine
        return Task {
            for await event in events { engine.noteLocal([event]) }
        }
    }

    /// A new watcher on the root, recorded as the current one.
    private func startWatcher() throws(WatcherError) -> AsyncStream<WatchEvent> {
        // The engine's own temporary files are never news to it, nor is one it moved into place.
        let watcher = InotifyWatcher(root: root, logger: logger, ignoredFilePrefix: IgnoreRules.temporaryFilePrefix,
                                     ownRenamePrefix: FolderEngine.ownTemporaryPrefix)
        let events = try watcher.start()
        watching.withLock { $0 = watcher }
        return events
    }

    private func stopWatcher() {
        let watcher = watching.withLock { current -> InotifyWatcher? in
            defer { current = nil }
            return current
        }
        watcher?.stop()
    }

    /// The engine's status, with the watcher's latest warning (a queue overflow, a watch limit
    /// reached) shown as a problem of the folder itself.
    ///
    /// A change the watcher saw but has not handed to the engine yet is work on its way too
    /// (SPEC §15): the folder is not shown `idle` then. The watcher is asked first, as
    /// `isSettled` does, so a change moving on to the engine is seen in one or the other.
    func status() -> FolderStatus {
        let watcherQuiet = watching.withLock({ $0 })?.isQuiet ?? true
        var status = engine.status()
        if !watcherQuiet, status.state == .idle { status.state = .syncing }
        if content != nil { status.path = root.path }  // on demand: the mount point, not the content directory
        if let problem = mountProblem.withLock({ $0 }) { status.problems.insert(ItemProblem(path: ".", message: problem), at: 0) }
        if mountHeld.withLock({ $0 }) { status.state = .held }
        status.problems += leftRemote.withLock { $0 }.map { ItemProblem(path: $0, message: DetachedOnDemandFolder.notLocalMessage) }
        if let warning = watching.withLock({ $0 })?.warnings.last {
            status.problems.insert(ItemProblem(path: ".", message: "watcher: \(warning) (the folder was scanned again)"), at: 0)
        }
        return status
    }

    /// The path inside the folder of `absolute` (`.some(nil)`: the folder itself; `nil`: not
    /// in it), given at the folder's path — an on-demand folder's mount point stands for its
    /// content directory.
    func relativePath(ofAbsolute absolute: String) -> RelativePath?? {
        guard let content else { return engine.relativePath(ofAbsolute: absolute) }
        if absolute.bytesEqual(root.path) { return engine.relativePath(ofAbsolute: content.path) }
        guard absolute.hasBytePrefix(root.path + "/") else { return nil }
        return engine.relativePath(ofAbsolute: content.path + String(decoding: absolute.utf8.dropFirst(root.path.utf8.count), as: UTF8.self))
    }

    /// Why an on-demand folder is held waiting for its missing path (SPEC §4a), or `nil`.
    var mountHold: String? { mountHeld.withLock { $0 } ? mountProblem.withLock { $0 } : nil }

    /// Settled: the engine has nothing to do and the watcher has nothing held back.
    var isSettled: Bool { (watching.withLock({ $0 })?.isQuiet ?? true) && engine.isSettled }
}

// MARK: on-demand folders (SPEC §14)

extension FolderService {
    /// Runs an on-demand folder: a mount left by a process that died is cleared, anything
    /// found in the mount point is taken into the content directory as local changes, the
    /// content directory is mounted at the folder's path, and the engine syncs it while the
    /// cache keeper holds it within `cache_max_size`; the mount goes when the folder stops.
    /// A folder whose path is missing waits for it (SPEC §4a).
    private func runMounted(content: URL) async {
        let engine = self.engine, zone = self.zone, stop = stopping.stream
        if engine.isDetached { return await stayDetached(content: content) }
        let notifications = changeNotifications()
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    guard await self.mountWhenThere(content: content) else { return }
                    await withTaskGroup(of: Void.self) { running in
                        running.addTask { await engine.run() }
                        // A share that ends while the folder is on demand: the mount goes.
                        running.addTask {
                            while !engine.isDetached {
                                do { try await Task.sleep(for: .seconds(1)) } catch { return }
                            }
                        }
                        if let mount = self.mounted.withLock({ $0 }) {
                            let keeper = CacheKeeper(engine: engine, fileSystem: mount.fileSystem, limit: self.folder.cacheMaxSize, logger: self.logger)
                            running.addTask { await keeper.run() }
                            // A read-only share refuses writes at the mount (EROFS, SPEC §14),
                            // following permission changes within a second.
                            running.addTask {
                                while !Task.isCancelled {
                                    mount.fileSystem.setReadOnly(engine.sharing?.isReadOnly ?? false)
                                    do { try await Task.sleep(for: .seconds(1)) } catch { return }
                                }
                            }
                        }
                        await running.next()
                        running.cancelAll()
                    }
                }
                group.addTask { await Self.forward(notifications, of: zone, to: engine) }
                group.addTask { for await _ in stop {} }
                await group.next()
                group.cancelAll()
            }
        }
        // A share that ended: what programs read whole through the mount is kept too.
        var keptWhole: Set<String> = []
        if engine.isDetached, let mount = mounted.withLock({ $0 }) {
            keptWhole = await mount.fileSystem.keepWholeReads(engine.notLocalDocuments().map(\.path.string))
        }
        if let mount = mounted.withLock({ state -> FuseMount? in defer { state = nil }; return state }) { await mount.unmount() }
        if engine.isDetached { await stayDetached(content: content, keptWhole: keptWhole) }
    }

    /// An on-demand folder whose share ended (SPEC §11, §14): not mounted; what is local is
    /// moved to the folder's path as plain files (`keptWhole`: documents the index has as not
    /// local that were read whole through the mount and copied into place), and what was not
    /// is listed by the status. The engine runs on, detached: its state says so and a
    /// person's actions are refused. Waits there until the folder stops.
    private func stayDetached(content: URL, keptWhole: Set<String> = []) async {
        do {
            leftRemote.withLock { $0 = [] }
            let notLocal = try DetachedOnDemandFolder.leave(content: content, at: root, stateDirectory: engine.configuration.stateDirectory,
                                                             notLocal: engine.notLocalDocuments().map(\.path.string).filter { !keptWhole.contains($0) },
                                                             logger: logger)
            leftRemote.withLock { $0 = notLocal }
            mountProblem.withLock { $0 = nil }
        } catch {
            logger.error("the detached folder's files could not be moved to its path", metadata: ["path": "\(root.path)", "content": "\(content.path)", "error": "\(error)"])
            mountProblem.withLock { $0 = "its files stay in \(content.path): \(error)" }
        }
        let engine = self.engine, stop = stopping.stream
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await engine.run() }
                group.addTask { for await _ in stop {} }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// Waits for the mount point, takes in what it holds and mounts the folder there; false
    /// when cancelled first. A mount that fails is reported (the folder's problem and the log)
    /// and the engine still syncs the content directory.
    private func mountWhenThere(content: URL) async -> Bool {
        // A stale mount was cleared when the folder was made (`init`); one that shows while
        // the path is missing is cleared in the wait.
        var waiting = false
        while RootIdentity.of(root.path) == nil {
            if !waiting {
                logger.warning("the on-demand folder's path is missing; the folder waits for it", metadata: ["path": "\(root.path)"])
                mountProblem.withLock { $0 = "held: \(root.path) is missing; the folder is mounted again once it is back" }
                mountHeld.withLock { $0 = true }
                waiting = true
            }
            do { try await Task.sleep(for: .seconds(1)) } catch { return false }
            FuseMount.clearStale(at: root.path, logger: logger)
        }
        mountHeld.withLock { $0 = false }
        // A folder switching from mirror to on demand moves its files into the content
        // directory: not while programs have them open (they would keep writing the old place).
        var reported = false
        while OnDemandMountPoint.holdsItems(root), case let users = OnDemandMountPoint.processesUsing(root), !users.isEmpty {
            if !reported {
                let message = "files in \(root.path) are open (processes \(users.map(String.init).joined(separator: ", "))); "
                    + "the folder becomes on-demand once they are closed"
                logger.warning("the folder waits to become on-demand: files in it are open", metadata: ["path": "\(root.path)", "processes": "\(users)"])
                mountProblem.withLock { $0 = "waiting: " + message }
                reported = true
            }
            do { try await Task.sleep(for: .seconds(1)) } catch { return false }
        }
        do {
            OnDemandMountPoint.copyMarker(from: content, to: root)
            OnDemandMountPoint.copyMarker(from: root, to: content)
            try OnDemandMountPoint.moveEntries(from: root, into: content, logger: logger)
            let fileSystem = try OnDemandFileSystem(backing: content.path, partialDirectory: OnDemandMountPoint.partialDirectory(in: engine.configuration.stateDirectory).path,
                                                    source: engine, logger: logger,
                                                    fetchTimeout: .seconds(folder.fetchTimeoutSeconds))
            let mount = FuseMount(mountPoint: root.path, fileSystem: fileSystem, logger: logger)
            try mount.mount()
            mounted.withLock { $0 = mount }
            mountProblem.withLock { $0 = nil }
        } catch {
            let message = (error as? SyncError)?.message ?? "\(error)"
            logger.error("the on-demand folder could not be mounted; its content still syncs in the state directory",
                         metadata: ["path": "\(root.path)", "content": "\(content.path)", "error": "\(message)"])
            mountProblem.withLock { $0 = "not mounted: \(message)" }
        }
        return true
    }

    /// A folder that became a mirror downloads what was not local (once the engine runs; the
    /// marker stays until every download is done, so a restart carries on).
    private func downloadWhatIsNotLocal() {
        let marker = FolderModeSwitch.downloadsMarker(in: engine.configuration.stateDirectory)
        guard FileManager.default.fileExists(atPath: marker.path) else { return }
        let missing = engine.notLocalDocuments().map(\.path)
        guard !missing.isEmpty else {
            try? FileManager.default.removeItem(at: marker)
            return
        }
        logger.notice("the folder is a mirror now; downloading what was not local", metadata: ["path": "\(root.path)", "items": "\(missing.count)"])
        let logger = self.logger, root = self.root
        engine.enqueue(.makeLocal(missing)) { outcomes in
            let failed = outcomes.filter { !$0.done }
            if failed.isEmpty {
                try? FileManager.default.removeItem(at: marker)
                logger.notice("everything in the folder is local", metadata: ["path": "\(root.path)"])
            } else {
                logger.warning("some files could not be downloaded; docsyncd tries again when it starts, or use docs-status download",
                               metadata: ["path": "\(root.path)", "failed": "\(failed.count)", "first": "\(failed[0].path): \(failed[0].message ?? "")"])
            }
        }
    }

    /// A folder that was on demand and is a mirror now gets its content back from the content
    /// directory (renamed, nothing sent or fetched) before anything watches or scans it.
    private func bringBackContent() throws {
        let content = OnDemandMountPoint.contentDirectory(in: engine.configuration.stateDirectory)
        guard FileManager.default.fileExists(atPath: content.path) else { return }
        FuseMount.clearStale(at: root.path, logger: logger)
        OnDemandMountPoint.copyMarker(from: content, to: root)
        try OnDemandMountPoint.moveEntries(from: content, into: root, logger: logger)
        try FileManager.default.removeItem(at: content)
    }
}

/// Which directory a path names now (device and inode, symlinks followed); `nil` when it
/// names none.
struct RootIdentity: Hashable {
    var device: UInt64
    var inode: UInt64

    static func of(_ path: String) -> RootIdentity? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
        return RootIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}
