import Foundation

/// One entry of the daemon's event stream (SPEC §15, `docs-status events`): a change of
/// what the daemon or one of its folders is doing, numbered.
///
/// What a reader may rely on: ids strictly increase, across restarts too; the daemon keeps
/// at least the last 1,000; a reader asking for ids no longer kept first gets a `gap` event
/// whose `firstAvailable` names the first id it can have.
public struct DaemonEvent: Codable, Sendable, Hashable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// docsyncd started (the folders it syncs in `message`).
        case started
        /// docsyncd stopped.
        case stopped
        /// A folder's state changed (`message`: "old → new", with the state's message).
        case folderState
        /// A problem appeared in a folder (`path` and `message`: the item and what is wrong).
        case problem
        /// A problem went away.
        case problemCleared
        /// Conflicts kept as copies in a folder went up or down (`message`: the count).
        case conflicts
        /// A folder finished sending or applying what was pending (`message`: the counts).
        case synced
        /// Events before `firstAvailable` are no longer kept.
        case gap
    }

    public var id: Int64
    public var time: Date
    public var kind: Kind
    /// The folder's id, for a folder's event.
    public var folder: String?
    /// The item's path in the folder, for an item's event.
    public var path: String?
    public var message: String
    /// For `gap`: the first id the reader can have.
    public var firstAvailable: Int64?

    public init(id: Int64, time: Date, kind: Kind, folder: String? = nil, path: String? = nil, message: String, firstAvailable: Int64? = nil) {
        self.id = id
        self.time = time
        self.kind = kind
        self.folder = folder
        self.path = path
        self.message = message
        self.firstAvailable = firstAvailable
    }
}

/// The events two successive snapshots of the daemon's folders imply, oldest first, without
/// ids (the log numbers them). Pure: the same snapshots give the same events.
public enum FolderStatusEvents {
    /// An event before it is numbered.
    public struct Draft: Sendable, Hashable {
        public var kind: DaemonEvent.Kind
        public var folder: String?
        public var path: String?
        public var message: String

        public init(kind: DaemonEvent.Kind, folder: String? = nil, path: String? = nil, message: String) {
            self.kind = kind
            self.folder = folder
            self.path = path
            self.message = message
        }
    }

    /// At most this many problem events per folder per snapshot; the rest are counted in one.
    public static let problemsPerSnapshot = 20

    public static func changes(from previous: [FolderStatus], to current: [FolderStatus]) -> [Draft] {
        let before = Dictionary(previous.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var drafts: [Draft] = []
        for folder in current {
            let old = before[folder.id]
            if old?.state != folder.state || (old?.message != folder.message && folder.state != .syncing) {
                let from = old.map { $0.state.rawValue + " → " } ?? ""
                drafts.append(Draft(kind: .folderState, folder: folder.id,
                                    message: from + folder.state.rawValue + (folder.message.map { ": " + $0 } ?? "")))
            }
            let oldProblems = Set((old?.problems ?? []).map(ProblemKey.init)), newProblems = Set(folder.problems.map(ProblemKey.init))
            let appeared = folder.problems.filter { !oldProblems.contains(ProblemKey($0)) }
            for problem in appeared.prefix(problemsPerSnapshot) {
                drafts.append(Draft(kind: .problem, folder: folder.id, path: problem.path, message: problem.message))
            }
            if appeared.count > problemsPerSnapshot {
                drafts.append(Draft(kind: .problem, folder: folder.id, message: "\(appeared.count - problemsPerSnapshot) more problems (docs-status errors lists them)"))
            }
            let cleared = (old?.problems ?? []).filter { !newProblems.contains(ProblemKey($0)) }
            for problem in cleared.prefix(problemsPerSnapshot) {
                drafts.append(Draft(kind: .problemCleared, folder: folder.id, path: problem.path, message: problem.message))
            }
            if cleared.count > problemsPerSnapshot {
                drafts.append(Draft(kind: .problemCleared, folder: folder.id, message: "\(cleared.count - problemsPerSnapshot) more problems cleared"))
            }
            if let old, old.conflicts != folder.conflicts {
                drafts.append(Draft(kind: .conflicts, folder: folder.id, message: "\(folder.conflicts) conflict\(folder.conflicts == 1 ? "" : "s") (was \(old.conflicts))"))
            }
            if let old, old.pendingUploads + old.pendingDownloads > 0, folder.pendingUploads + folder.pendingDownloads == 0 {
                drafts.append(Draft(kind: .synced, folder: folder.id, message: "nothing pending (\(folder.items) items)"))
            }
        }
        return drafts
    }

    private struct ProblemKey: Hashable {
        var path: String
        var message: String
        init(_ problem: ItemProblem) { path = problem.path; message = problem.message }
    }
}
