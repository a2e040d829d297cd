import DocSyncCore
import Foundation

/// Every file content a person wrote in a simulation, and what happened to it: which later
/// write replaced it knowingly (its writer had this content on disk at that path), which
/// devices deleted it knowingly, and which devices touched it (edited, moved) and when.
/// Contents are unique per write, so a content names its write.
///
/// A touch counts for every write that was ever at the touched path, not only for the
/// content the toucher had: the item at a path is one record, whose versions the engines
/// merge field by field (a move made on an older version carries the newer content along,
/// SPEC §4), so a device that moved or edited it competes with a deletion of any of them.
/// A later write at a path another device moved away from inherits that move too: the
/// writer may not have seen it, and the engines then merge the two. (This is lenient: such
/// a write's deletion is not checked against that mover.)
struct WriteLedger {
    struct Write {
        let id: Int
        let device: Int
        let path: String
        let content: Data
        /// A later write whose device had this content on disk when it wrote over it.
        var replacedBy: Int?
        /// When each device last deleted it while it was on its disk (the ledger's event count).
        var lastDeleted: [Int: Int] = [:]
        /// When each device last edited or moved it, or another version at one of its paths.
        var lastTouched: [Int: Int] = [:]
        /// Every path it was at, on any device (as bytes).
        var paths: Set<PathKey>

        /// Devices that deleted it while it was on their disk.
        var deletedBy: Set<Int> { Set(lastDeleted.keys) }

        /// Whether some device's last word on it is an edit or a move, not a deletion: its
        /// coming back after a deletion is then the edit winning (SPEC §4).
        var competesWithDeletion: Bool {
            lastTouched.contains { device, time in time > (lastDeleted[device] ?? -1) }
        }
    }

    private(set) var writes: [Write] = []
    /// Moves made so far: from path → [(to path, device)].
    private var movesFrom: [PathKey: [(target: String, device: Int)]] = [:]
    private var byContent: [Data: Int] = [:]
    /// Counts the ledger's events, to order touches and deletions.
    private var events = 0

    var nextID: Int { writes.count + 1 }

    /// The write whose content this is, if a person wrote it.
    func write(of content: Data) -> Int? { byContent[content] }

    /// Records a new write of `content` by `device`, replacing `previous` (the content that
    /// was at the path on that device's disk, if any).
    mutating func record(device: Int, path: String, content: Data, previous: Data?) {
        events += 1
        let id = nextID
        touchVersions(at: path, by: device)
        var write = Write(id: id, device: device, path: path, content: content, paths: [PathKey(path)])
        var frontier = [path]
        while let next = frontier.popLast() {
            for move in movesFrom[PathKey(next)] ?? [] where move.device != device && write.paths.insert(PathKey(move.target)).inserted {
                write.lastTouched[move.device] = events
                frontier.append(move.target)
            }
        }
        writes.append(write)
        byContent[content] = id
        if let previous, let old = byContent[previous] {
            writes[old - 1].replacedBy = writes[old - 1].replacedBy ?? id
            writes[old - 1].lastTouched[device] = events
        }
    }

    /// `device` deleted the file holding `content`.
    mutating func deleted(_ content: Data, by device: Int) {
        guard let id = byContent[content] else { return }
        events += 1
        writes[id - 1].lastDeleted[device] = events
    }

    /// `device` moved the file holding `content` (if a person wrote it) from `path` to `target`.
    mutating func moved(_ content: Data?, from path: String, to target: String, by device: Int) {
        events += 1
        if let content, let id = byContent[content] {
            writes[id - 1].lastTouched[device] = events
            writes[id - 1].paths.insert(PathKey(target))
        }
        for index in writes.indices where writes[index].paths.contains(PathKey(path)) {
            writes[index].lastTouched[device] = events
            writes[index].paths.insert(PathKey(target))
        }
        movesFrom[PathKey(path), default: []].append((target, device))
    }

    /// Every write that was at `path` was touched by `device` (now).
    private mutating func touchVersions(at path: String, by device: Int) {
        for index in writes.indices where writes[index].paths.contains(PathKey(path)) { writes[index].lastTouched[device] = events }
    }
}
