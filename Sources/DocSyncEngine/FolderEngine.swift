import DocSyncCore
import DocSyncPlatform
import GRDB
import DocSyncStorage
import DocSyncWatcher
import Foundation
import Logging
import Synchronization

/// Keeps one folder and one zone identical, in the spirit of CKSyncEngine.
///
/// Local changes arrive as watcher events (`noteLocal`), remote ones as notifications
/// (`noteRemoteChange`). One loop does the work in order, a turn at a time (`turn(_:)`;
/// `run()` loops over it): compare the folder with the index (`Reconciler`;
/// `LocalChangePlanner` decides what changed), fetch and apply remote changes (`Fetcher`;
/// each observed by `Observer`, planned by `RemoteChangePlanner`, carried out by
/// `Executor`), send what is pending (`Sender`; `DeletionCheck` decides whether local
/// deletions go with it); the jobs are values over the engine that own nothing between
/// runs. Every change the loop sees is written to the index before anything else happens
/// to it; errors follow SPEC §5, with backoff. `run()` returns when its task is cancelled,
/// after finishing the current step.
///
/// Ownership: the loop's task owns the engine's state, as a plain value (`EngineLoop`) it
/// passes along to each step's work. Others reach the engine in two ways only: they hand
/// work to the loop through `inbox` (the one lock they take), and they read what the loop
/// publishes (`published`, one snapshot, and the index). Pipelining stays where it pays,
/// inside a step and unless `environment` asks for serial work: while the loop saves a
/// page, the next is uploaded and the one after read on tasks of their own
/// (`Sender.sendPending`), chunk batches upload side by side, a page's files are read on up
/// to four threads (`readConcurrently`) and remote documents are written ahead
/// (`Fetcher.prepareNewDocuments`). The loop starts and awaits each of these tasks within
/// the step; they take their inputs as values and give their results back as values, write
/// only temporary files of their own and their own page's index rows (the index serialises
/// writes, and a save checks that the rows it sends are still as prepared), and read a copy
/// of the scanner's ignore rules.
public final class FolderEngine: Sendable {
    public let configuration: EngineConfiguration
    /// What the engine saves to and fetches from: the given backend behind a `MeteredBackend`
    /// (chunk bytes counted into `metrics`) and, for an encrypted folder, a `SealingBackend`
    /// (records sealed on the way out, opened on the way in).
    let backend: any StorageBackend
    /// What the engine measures of its work (bytes, scans, fetches) for its folder's metrics.
    public let metrics: EngineMetrics
    /// The backend as given, for what it offers besides storage (`ShareMembership`).
    let givenBackend: any StorageBackend
    /// Every file-system call goes through this: the folder's and the version store's.
    let fileSystem: any FolderFileSystem
    let index: LocalIndex
    let logger: Logger
    let versions: VersionStore
    /// Time, record names, randomness and whether work overlaps (`EngineEnvironment`).
    public let environment: EngineEnvironment
    /// What anyone hands the loop: watcher events, notifications, a person's actions.
    let inbox = Mutex(EngineInbox())
    let wake = WakeSignal()
    /// What the loop publishes for status readers, one snapshot of both parts; only the
    /// loop writes it (`updateLive`, `updateSafety`).
    let published: Mutex<Published>

    /// How the names of this process's temporary files start: a file renamed from such a
    /// name is an engine's own write moved into place, recorded in its index by the engine
    /// itself, so a watcher need not report it (`InotifyWatcher`'s `ownRenamePrefix`).
    public static var ownTemporaryPrefix: String { Materializer.ownTemporaryPrefix }

    /// The index lives in `configuration.stateDirectory` on the real file system; the folder
    /// and the version store are reached through `fileSystem`; time, names and randomness
    /// come from `environment`.
    public init(configuration: EngineConfiguration, backend: any StorageBackend, logger: Logger,
                fileSystem: any FolderFileSystem = PosixFileSystem(), environment: EngineEnvironment = .live) throws {
        self.configuration = configuration
        self.environment = environment
        self.givenBackend = backend
        self.fileSystem = fileSystem
        var logger = logger
        logger[metadataKey: "folder"] = "\(configuration.zone.name)"
        self.logger = logger
        try FileManager.default.createDirectory(at: configuration.stateDirectory, withIntermediateDirectories: true)
        let index = try LocalIndex(url: configuration.indexURL)
        self.index = index
        let metrics = EngineMetrics()
        self.metrics = metrics
        let metered = MeteredBackend(base: backend, metrics: metrics)
        self.backend = configuration.encryption.map { keys in
            SealingBackend(base: metered, zone: configuration.zone, keys: keys, ledger: SealedVersionLedger(index: index), logger: logger)
        } ?? metered
        let stored = try index.read { db in try db.engineValue(SafetyState.key) }
        self.published = Mutex(Published(safety: SafetyState.load(stored)))
        self.versions = VersionStore(directory: configuration.versionsURL, fileSystem: fileSystem, now: environment.wallNow)
        loadPause()
        // An epoch this folder lacked has come: fetch again, so what it refused opens.
        configuration.encryption?.whenMissingKeysArrive { [weak self] in self?.requestSync() }
    }

    /// A new loop's state for this engine (its ignore rules read from the folder now): what
    /// `run()` keeps, and what a caller taking turns itself passes to each `turn(_:)`.
    public func makeLoop() -> EngineLoop {
        EngineLoop(owner: ObjectIdentifier(self), scanner: makeScanner())
    }

    /// How the folder is walked, with its ignore rules as `.docsyncignore` says now.
    func makeScanner() -> FolderScanner {
        FolderScanner(root: configuration.root, ignores: FolderEngine.loadIgnores(configuration.root, fileSystem), fileSystem: fileSystem)
    }

    // MARK: inputs

    /// Watcher events: the paths they name are compared with the index on the next turn.
    public func noteLocal(_ events: [WatchEvent]) {
        guard !events.isEmpty else { return }
        inbox.withLock { inbox in for event in events { inbox.add(event) } }
        wake.fire()
    }

    /// The backend says the zone changed: fetch on the next turn.
    public func noteRemoteChange() {
        inbox.withLock { $0.fetch = true; $0.sharingCheck = true }
        wake.fire()
    }

    /// Fetch, compare the whole folder and send now — without waiting for a backoff to end.
    public func requestSync() {
        inbox.withLock { $0.fetch = true; $0.send = true; $0.fullScan = true; $0.retryNow = true }
        wake.fire()
    }

    // MARK: the loop

    /// Runs turns until the task is cancelled, waiting between them as each turn says (an
    /// input wakes the wait early). Returns after finishing the current turn.
    public func run() async {
        var loop = makeLoop()
        while !Task.isCancelled {
            if case .wait(let until) = await turn(&loop) {
                await wake.wait(timeout: until - environment.now())
            }
        }
        abandon(inbox.withLock { inbox in
            defer { inbox.actions = [] }
            return inbox.actions
        })
        setBusy(false)
    }

    /// One step of the loop: takes what the inbox holds, compares, fetches and sends as
    /// needed, and says whether to call again at once or what to wait for. The first turn
    /// also starts the engine (a full scan, a fetch, leftovers removed). Turns of one engine
    /// must not overlap; `run()` is a loop of turns, and a simulation may call turns of
    /// several engines from one task instead. `loop` is this engine's (`makeLoop()`), the
    /// same one on every turn.
    public func turn(_ loop: inout EngineLoop) async -> TurnOutcome {
        precondition(loop.owner == ObjectIdentifier(self), "a turn was given another engine's loop")
        if !loop.started {
            loop.started = true
            // The first full scan also removes what interrupted downloads left.
            inbox.withLock { $0.fullScan = true; $0.fetch = true; $0.send = true; $0.sharingCheck = true }
            pruneVersions()
            loop.lastSafetyNet = environment.now()
        }
        if loop.safetyNetDue {
            loop.safetyNetDue = false
            if let last = loop.lastSafetyNet, environment.now() - last >= configuration.safetyNetInterval {
                loop.lastSafetyNet = environment.now()
                inbox.withLock { $0.fetch = true }
                pruneVersions()
            }
        }
        return await step(&loop)
    }

    private func step(_ loop: inout EngineLoop) async -> TurnOutcome {
        if let ended = published.withLock({ $0.safety.shareEnded }), let share = configuration.share {
            // Detached for good (SPEC §11): the files stay as they are and the root is not
            // looked after any more; a person's actions are refused, writing nothing.
            let message = FolderStatus.shareEnded(share, ended)
            let actions = inbox.withLock { inbox -> [QueuedAction] in
                defer { inbox = EngineInbox() }
                return inbox.actions
            }
            for item in actions {
                item.reply([ActionOutcome(folder: configuration.zone.name, path: ".", done: false, message: "refused: \(message)")])
            }
            setState(.detached, message: message)
            setBusy(false)
            return .wait(until: environment.now() + .seconds(3600))
        }
        if published.withLock({ $0.live.movedTo != nil }) {
            // Moved into an encrypted zone (`zoneMoved`): nothing is sent, fetched or written
            // until the daemon starts the folder there; a person's actions wait for that.
            setBusy(false)
            return .wait(until: environment.now() + .seconds(3600))
        }
        if let until = pausedUntil() {
            // Paused (SPEC §15): a person's actions run (a program opening a file not local
            // makes it local); local changes stay in the inbox for the turn after `resume`.
            let actions = inbox.withLock { inbox -> [QueuedAction] in
                defer { inbox.actions = [] }
                return inbox.actions
            }
            if !actions.isEmpty { await run(actions, root: checkRoot(loop: &loop), loop: &loop) }
            setState(.paused, message: Self.pauseMessage(until: until))
            setBusy(false)
            return .wait(until: environment.now() + .seconds(min(3600, max(0.05, until.timeIntervalSinceNow))))
        }
        if let withheld = keysWithheld {
            // An encrypted folder without its keys (SPEC §13): nothing is sent, applied or
            // deleted, a person's actions too are refused; the keys are looked for again
            // every second (and at once when an input wakes the loop).
            standStill(withheld, loop: &loop)
            setBusy(false)
            return .wait(until: environment.now() + .seconds(1))
        }
        resumeAfterKeys(loop: &loop)
        let root = checkRoot(loop: &loop)
        guard root == .proceed else {
            // Held (SPEC §4a) or no folder yet: nothing is sent or written; only a
            // person's choices run. The root is looked at again every second (and at
            // once when the watcher or a person wakes the loop).
            let actions = inbox.withLock { inbox -> [QueuedAction] in
                defer { inbox = EngineInbox() }
                return inbox.actions
            }
            await run(actions, root: root, loop: &loop)
            showStopped(root)
            setBusy(false)
            return .wait(until: environment.now() + .seconds(1))
        }
        let gate = decideDeletionGate(lastLocalDeletion: loop.lastLocalDeletion)
        // Busy before the inbox is emptied, so `isSettled` (which reads the inbox first)
        // never sees an empty inbox and an idle loop while a turn holds what it took.
        setBusy(true)
        let work = inbox.withLock { inbox -> EngineInbox in
            let taken = inbox
            inbox = EngineInbox()
            return taken
        }
        if work.fetch { loop.retry.fetchOwed = true }
        if work.sharingCheck { loop.retry.sharingCheckOwed = true }
        if work.retryNow { loop.retry.notBefore = nil }
        let backendAllowed = loop.retry.notBefore.map { environment.now() >= $0 } ?? true
        let backendWork = loop.retry.fetchOwed || hasSendablePending()
        if work.scopes.isEmpty && !work.fullScan && work.actions.isEmpty && !(backendAllowed && backendWork) {
            if let notBefore = loop.retry.notBefore, backendWork {
                // Backing off: local changes are still recorded as they come, but the
                // backend is left alone until the delay (at least its retryAfter) is over.
                return .wait(until: notBefore)
            }
            if case .wait(let until) = gate {
                // Deletions wait for the rest of what may be a mass deletion.
                return .wait(until: until)
            }
            setBusy(false)
            if published.withLock({ [.idle, .syncing, .scanning, .deletionsHeld].contains($0.live.state) }) {
                finishedSync()
            }
            if let since = loop.busySince, environment.now() - since > .seconds(1) {
                // A long round (a first sync, a large folder) leaves freed memory in the
                // allocator's arenas and pages in SQLite's caches (the index's, an
                // embedded backend's): give both back before idling, so the daemon stays small.
                index.releaseMemory()
                backend.releaseMemory()
                ServiceMemory.releaseFreedMemory()
            }
            loop.busySince = nil
            loop.safetyNetDue = true
            return .wait(until: environment.now() + configuration.safetyNetInterval)
        }
        if loop.busySince == nil { loop.busySince = environment.now() }
        for warning in work.rescanWarnings {
            logger.warning("rescanning after lost events", metadata: ["reason": "\(warning)"])
        }
        // Actions first: each checks the item it touches against the disk itself.
        await run(work.actions, root: root, loop: &loop)
        do throws(SyncError) {
            if work.fullScan {
                showWorking(.scanning)
                let started = environment.now()
                try reconciler.reconcile([EngineInbox.Scope(path: nil, subtree: true)], loop: &loop)
                let took = environment.now() - started
                metrics.record(.scanned(.full, took: took))
                logger.debug("scanned the folder", metadata: ["took": "\(took)"])
            } else if !work.scopes.isEmpty {
                let started = environment.now()
                try reconciler.reconcile(Array(work.scopes), loop: &loop)
                metrics.record(.scanned(.changes, took: environment.now() - started))
            }
            guard backendAllowed else { return .more }
            if loop.retry.zoneMissing {
                try await recreateZone()
                loop.retry.zoneMissing = false
            }
            if loop.retry.sharingCheckOwed {
                let detached = try await refreshSharing(loop: &loop)
                loop.retry.sharingCheckOwed = false
                if detached { return .more }
            }
            // A failed fetch does not hold back sending (stale saves are merged when the
            // server answers serverRecordChanged); its error is handled after the send.
            var fetchFailure: SyncError?
            // Answers a send cut short left waiting go first: the fetch may bring newer versions.
            try await applyAnsweredChanges(loop: &loop)
            if loop.retry.fetchOwed {
                showWorking(.syncing)
                do {
                    let started = environment.now()
                    try await fetcher.fetchAndApply(loop: &loop)
                    metrics.record(.fetched(took: environment.now() - started))
                    loop.retry.fetchOwed = false
                    endShareHold()
                } catch where error.isTransient || error.code == .assetFileModified {
                    fetchFailure = error
                }
            }
            var sentEverything = true
            // Joining (no change token yet: never fetched, or fetching everything again; or
            // a first fetch not complete yet) sends nothing before the server's records and
            // Recently Deleted are known, so a local file is matched with the record at its
            // path instead of racing it as a new one, and one another device deleted is not
            // uploaded again (SPEC §4a).
            var joined = loadToken() != nil
            if joined, try fetcher.joinUnfinished() { joined = false }
            if !joined { loop.retry.fetchOwed = true }
            if hasSendablePending(), joined {
                showWorking(.syncing)
                let started = environment.now()
                _ = decideDeletionGate(lastLocalDeletion: loop.lastLocalDeletion)
                if keepsChangesLocal {
                    sentEverything = try await keepReadOnlyChanges(loop: &loop)
                } else {
                    sentEverything = try await sender.sendPending(loop: &loop)
                }
                try await applyAnsweredChanges(loop: &loop)
                logger.debug("sent pending changes", metadata: ["took": "\(environment.now() - started)"])
            }
            if let fetchFailure { throw fetchFailure }
            loop.retry.succeeded()
            if !sentEverything {
                // A file was changing while being read: read it again once it settles.
                loop.retry.notBefore = environment.now() + .seconds(1)
            }
            setState(.idle)
        } catch {
            handle(error, retry: &loop.retry)
        }
        return .more
    }

    /// Where `path` is on disk.
    func absolute(_ path: RelativePath) -> String { configuration.root.path + "/" + path.string }

    /// The engine's jobs, over its folder, index and backend.
    var sender: Sender { Sender(engine: self) }
    var fetcher: Fetcher { Fetcher(engine: self) }
    var executor: Executor { Executor(engine: self) }
    var observer: Observer { Observer(engine: self) }
    var reconciler: Reconciler { Reconciler(engine: self) }

    /// Whether something is to be sent now: deletions only when the brake's gate lets them.
    func hasSendablePending() -> Bool {
        guard configuration.direction != .receiveOnly else { return false }
        // A shared folder whose zone does not answer sends nothing until it does; one whose
        // share ended, nothing ever again.
        guard published.withLock({ $0.safety.shareUnavailableSince == nil && $0.safety.shareEnded == nil }) else { return false }
        let condition = sendableCondition
        let pending = try? index.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM item WHERE \(condition))")
        }
        return pending ?? false
    }

    // MARK: housekeeping

    static func loadIgnores(_ root: URL, _ fileSystem: any FolderFileSystem) -> IgnoreRules {
        let contents = fileSystem.contents(root.appendingPathComponent(IgnoreRules.fileName).path).map { String(decoding: $0, as: UTF8.self) }
        return IgnoreRules(ignoreFileContents: contents)
    }

    private func pruneVersions() {
        let cutoff = Timestamp(nanosecondsSince1970: environment.wallNow().nanosecondsSince1970 - Int64(configuration.keepVersionsDays) * 86_400 * 1_000_000_000)
        _ = try? index.write { db in
            try versions.prune(olderThan: cutoff, in: db)
            // The conflict log keeps what the version store keeps (its entries name versions).
            try FolderEngine.pruneConflictLog(olderThan: cutoff, in: db)
        }
    }
}

/// What one `FolderEngine.turn()` leaves to do.
public enum TurnOutcome: Sendable, Equatable {
    /// More work may be waiting: take another turn at once.
    case more
    /// Nothing to do before `until`, unless an input arrives first (then take a turn at once).
    case wait(until: ContinuousClock.Instant)
}

/// Keys of the engine's own state in the index.
enum EngineKeys {
    static let changeToken = "changeToken"
    /// Present while the folder joins its zone (`FolderEngine.beginJoining`).
    static let joining = "joining"
}
