import DocSyncCore
import DocSyncWatcher

/// Work handed to the engine from outside its loop: paths the watcher saw change, remote
/// notifications, requests to sync now. Taking it empties it.
struct EngineInbox: Sendable {
    /// A part of the folder to compare with the index.
    struct Scope: Sendable, Hashable {
        /// `nil`: the whole folder.
        var path: RelativePath?
        /// Walk everything beneath `path` too.
        var subtree: Bool
    }

    var scopes: Set<Scope> = []
    var fullScan = false
    var fetch = false
    var send = false
    /// A push named the zone: the folder's place in its share is asked again (a permission
    /// change, a removal; `FolderEngine.refreshSharing`). Comes with `fetch`.
    var sharingCheck = false
    /// A person asked for a sync now: a backoff in progress ends.
    var retryNow = false
    var rescanWarnings: [String] = []
    /// Actions asked for through `docs-status`, in order.
    var actions: [QueuedAction] = []

    var isEmpty: Bool { scopes.isEmpty && !fullScan && !fetch && !send && actions.isEmpty }

    mutating func add(_ event: WatchEvent) {
        switch event {
        case .changed(let path): addScope(path, subtree: false)
        case .directoryAppeared(let path): addScope(path, subtree: true)
        case .removed(let path): addScope(path, subtree: false)
        case .moved(let from, let to):
            addScope(from, subtree: false)
            addScope(to, subtree: true)
        case .rescan(let path, let reason):
            rescanWarnings.append(reason)
            if path.isEmpty { fullScan = true } else { addScope(path, subtree: true) }
        }
    }

    private mutating func addScope(_ path: String, subtree: Bool) {
        guard let relative = try? RelativePath(validating: path) else {
            fullScan = true
            return
        }
        scopes.insert(Scope(path: relative, subtree: subtree))
    }
}
