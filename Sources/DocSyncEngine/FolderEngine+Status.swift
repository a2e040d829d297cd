import DocSyncCore
import Foundation
import GRDB

/// What the loop publishes for status readers (`published`), and how readers take it.
extension FolderEngine {
    /// What status readers see, taken whole: a reader never sees one part of a change
    /// without the other.
    struct Published: Sendable {
        var live = LiveStatus()
        /// Deletion safety (SPEC §4a), as stored in the index.
        var safety: SafetyState
    }

    /// What the loop is doing, for status.
    struct LiveStatus: Sendable {
        var state: FolderState = .scanning
        var message: String?
        /// The message waits on something outside the engine (a refused sign-in, storage
        /// full): retries do not hide it; only a turn that succeeds clears it.
        var waitsOnTheBackend = false
        var pendingDownloads = 0
        var pendingDownloadBytes: Int64 = 0
        /// By path, as bytes (two names that differ only in normalization are two items).
        var problems: [PathKey: ItemProblem] = [:]
        var lastSync: Date?
        /// Sync rounds finished (the loop went idle with the backend reached).
        var completedRounds = 0
        var busy = true
        /// Whether pending local deletions are sent (`decideDeletionGate`).
        var deletionGate: DeletionGate = .release
        /// Since when an encrypted folder's keys have been withheld (`standStill`).
        var keysWithheldSince: Timestamp?
        /// The zone the server said this folder's zone moved into (`zoneMoved`, SPEC §13):
        /// nothing is sent or fetched any more; the daemon starts the folder again there.
        var movedTo: ZoneID?
        /// Paused by a person (SPEC §15): until when (`distantFuture`: until resumed).
        var pausedUntil: Date?
        /// A person's long action running now, with its progress (`FolderActivity`).
        var activity: FolderActivity?
    }

    /// The zone the server said this folder's zone moved into (`zoneMoved`): the engine
    /// stands still from then on, and whoever runs it starts the folder in that zone.
    public var zoneMovedTo: ZoneID? { published.withLock { $0.live.movedTo } }

    /// The folder's state and counts now.
    ///
    /// `idle` only when nothing is on its way (SPEC §15): the loop's last word is `idle` but
    /// work waits in the inbox (a change the watcher reported, a push, a request), a turn is
    /// under way, or something is pending, the state shown is the work's — `scanning` when
    /// the whole folder is to be compared, `syncing` otherwise. Read in the order work moves
    /// (inbox, then the loop, then the index, as `isSettled` does): a turn marks itself busy
    /// before it takes the inbox and is busy until what it took is sent or applied, so work
    /// on its way is always seen in one place or the next.
    public func status() -> FolderStatus {
        let queued = inbox.withLock { inbox in (any: !inbox.isEmpty, wholeFolder: inbox.fullScan) }
        let (live, safety) = published.withLock { ($0.live, $0.safety) }
        let released = live.deletionGate != .hold
        let counts = (try? index.read { db in try IndexCounts.fetch(db, deletionsReleased: released) }) ?? IndexCounts()
        let problems = live.problems.values.sorted { $0.path.bytesPrecede($1.path) } + counts.problems
        let held = heldStatus(safety, items: counts.items)
        // (A receive-only folder's local changes are never sent: nothing waits for them.)
        let sending = counts.pendingUploads > 0 && configuration.direction != .receiveOnly
        var state = live.state
        if state == .idle {
            if queued.wholeFolder {
                state = .scanning
            } else if queued.any || live.busy || sending || live.pendingDownloads > 0 {
                state = .syncing
            }
        }
        var status = FolderStatus(
            id: configuration.zone.name, path: configuration.root.path, state: state, message: live.message,
            items: counts.items, pendingUploads: counts.pendingUploads, pendingUploadBytes: counts.pendingUploadBytes,
            pendingDownloads: live.pendingDownloads, pendingDownloadBytes: live.pendingDownloadBytes,
            conflicts: counts.conflicts, problems: problems, lastSync: live.lastSync, held: held, sharing: safety.sharing)
        status.activity = live.activity
        return status
    }

    /// Runs `body`, a person's long action, showing its progress in the status: `body`
    /// reports the items done so far through the function it is given. The status shows
    /// nothing of it once `body` returns or throws.
    func showingActivity<T, E: Error>(_ action: String, total: Int, _ body: ((Int) -> Void) async throws(E) -> T) async throws(E) -> T {
        updateLive { $0.activity = FolderActivity(action: action, done: 0, total: total) }
        defer { updateLive { $0.activity = nil } }
        return try await body { done in
            self.updateLive { live in
                if let activity = live.activity { live.activity?.done = max(activity.done, min(done, activity.total)) }
            }
        }
    }

    /// True when an input (a watcher event, a notification, a request, an action) waits for
    /// the next turn.
    public var hasInput: Bool { inbox.withLock { !$0.isEmpty } }

    /// How many sync rounds have finished: a round asked for with `requestSync` is done once
    /// this has grown and the engine is settled.
    public var completedRounds: Int { published.withLock { $0.live.completedRounds } }

    /// True when the loop is waiting with nothing to do and nothing pending (held deletions
    /// and a held folder are not settled: they wait for a person).
    public var isSettled: Bool {
        // The inbox is read before the loop's flags: a turn marks itself busy before it
        // takes the inbox, so input is always seen in one place or the other.
        guard inbox.withLock({ $0.isEmpty }) else { return false }
        let idle = published.withLock { !$0.live.busy && [.idle, .detached].contains($0.live.state) && $0.live.deletionGate == .release }
        return idle && !hasSendablePending()
    }

    /// What the folder holds back for a person now (a held folder, or deletions the brake
    /// holds), `nil` when nothing.
    public var held: HeldDeletions? {
        heldStatus(published.withLock { $0.safety }, items: indexedItemCount())
    }

    /// What `safety` holds back: the folder (its root, or a shared zone that does not
    /// answer) with its `items`, or the brake's deletions.
    func heldStatus(_ safety: SafetyState, items: Int) -> HeldDeletions? {
        if let folder = heldFolderStatus(safety, items: items) { return folder }
        if let since = safety.shareUnavailableSince, safety.shareEnded == nil, let share = configuration.share {
            return HeldDeletions(reason: HeldDeletions.shareUnavailable, message: FolderStatus.shareUnavailable(share, items: items),
                                 since: since.date, items: items)
        }
        if let keys = keysHeldStatus(items: items) { return keys }
        return heldDeletionsStatus(safety)
    }

    func setState(_ state: FolderState, message: String? = nil, waitsOnTheBackend: Bool = false) {
        updateLive { $0.state = state; $0.message = message; $0.waitsOnTheBackend = waitsOnTheBackend }
    }

    /// Changes what status readers see of the loop's work (the loop alone calls it).
    @discardableResult
    func updateLive<T>(_ change: (inout LiveStatus) -> T) -> T {
        published.withLock { change(&$0.live) }
    }

    /// Shows `state` for work under way, except over a refused sign-in, full storage or a
    /// shared folder held while its zone does not answer: that stays shown until a turn
    /// succeeds, so a retry never reads as "signed in" with room, or as syncing.
    func showWorking(_ state: FolderState) {
        updateLive { live in
            guard !live.waitsOnTheBackend else { return }
            live.state = state
            live.message = nil
        }
    }

    func setBusy(_ busy: Bool) {
        updateLive { $0.busy = busy }
    }

    /// The loop went idle with the backend reached: a round is done. Held deletions keep the
    /// folder's state (and the count of deletions since it last settled).
    func finishedSync() {
        let holding = deletionGate == .hold
        if !holding { settleDeletionCount() }
        updateLive { live in
            live.lastSync = environment.wallNow().date
            live.state = holding ? .deletionsHeld : .idle
            live.message = holding ? "local deletions held by the mass-delete brake: see 'docs-status deletions'" : nil
            live.completedRounds += 1
        }
    }

    /// Every item of the index, pending deletions too.
    public func indexedItemCount() -> Int {
        ((try? index.readLatest { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item") }) ?? nil) ?? 0
    }

    /// The documents kept as placeholders (an on-demand folder's files not downloaded): their
    /// content is on the server only.
    public func placeholderCount() -> Int {
        ((try? index.readLatest { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE downloadingStatus = ?", arguments: [Placeholder.notDownloaded])
        }) ?? nil) ?? 0
    }

    /// Shows why the loop does nothing: a held folder, or no folder to sync yet.
    func showStopped(_ root: RootCheck) {
        switch root {
        case .proceed: return
        case .held(let reason):
            setState(.held, message: reason.explanation(root: configuration.root.path, items: indexedItemCount()))
        case .waiting(let message):
            setState(.error, message: message)
        }
    }

    func report(_ problem: ItemProblem) {
        updateLive { $0.problems[PathKey(problem.path)] = problem }
        logger.warning("cannot sync item", metadata: ["path": "\(problem.path)", "problem": "\(problem.message)"])
    }

    func clearProblem(at path: String) {
        updateLive { _ = $0.problems.removeValue(forKey: PathKey(path)) }
    }
}
