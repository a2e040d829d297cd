import DocSyncCore
import Foundation
import GRDB

/// The first step of applying a remote change: looking at the disk where the change lands,
/// recording any local change found there in the index, and reading the planner's input
/// (`RemoteChangeScope`) from the index. Nothing here decides or writes the folder.
extension FolderEngine {
    /// The scope of one remote change, and the index rows of the items it names (by record
    /// name), which the executor works on.
    struct ObservedScope {
        var scope: RemoteChangeScope
        var rows: [String: IndexItem]
    }

    /// What the planner needs to decide `change`. `deletedInFetch` names the records the same
    /// fetch deletes (an item in a saved record's way may be one of them).
    func observe(_ change: RemoteChange, deletedInFetch: Set<String> = []) throws(SyncError) -> ObservedScope {
        var scope = RemoteChangeScope(change: change, freshRecordName: "", joining: isJoining)
        var rows: [String: IndexItem] = [:]
        let name = change.recordName
        switch change {
        case .deleted:
            guard var row = try readIndex({ db in try db.item(named: name) }) else { return ObservedScope(scope: scope, rows: rows) }
            if row.pending == .none, !row.isPlaceholder {
                let stat = try? fileSystem.status(absolute(row.path))
                if stat.map({ !row.matches($0) }) ?? true || row.kind == .folder {
                    // Changed here (or gone) and not recorded yet: record it first, so an edit
                    // is not taken for the file the deletion means.
                    try reconcile([EngineInbox.Scope(path: row.path, subtree: row.kind == .folder)])
                    guard let again = try readIndex({ db in try db.item(named: name) }) else { return ObservedScope(scope: scope, rows: rows) }
                    row = again
                }
            }
            try readEditedContent(&row)
            scope.item = localItem(row)
            rows[name] = row
            if row.kind == .folder { scope.hasLiveChildren = try hasLiveChildren(row) }
        case .saved(let server):
            if owned.withLock({ $0.scanner.isIgnored(server.path, isDirectory: server.type == .folder) }) {
                scope.isIgnored = true
                return ObservedScope(scope: scope, rows: rows)
            }
            var row = try readIndex { db in try db.item(named: name) }
            if let known = row, known.pending != .delete, !known.isPlaceholder, known.acked?.changeTag != server.changeTag {
                if let stat = try? fileSystem.status(absolute(known.path)), known.matches(stat) {} else {
                    // A local change the watcher has not reported yet (or an edited file gone
                    // since, a plan cut short having moved it aside): record it first.
                    try reconcile([EngineInbox.Scope(path: known.path, subtree: false)])
                    row = try readIndex { db in try db.item(named: name) }
                }
            }
            if var known = row {
                try readEditedContent(&known)
                // A merge may keep this device's version beside as a new item.
                if known.pending == .save { scope.freshRecordName = environment.newRecordName() }
                scope.item = localItem(known)
                rows[name] = known
            }
            // What is at the record's path, when the item is not there already (a deleted
            // item is not, wherever its row says it was).
            if row?.path != server.path || row?.pending == .delete {
                var occupant = try readIndex { db in try db.item(at: server.path) }.flatMap { $0.recordName == name ? nil : $0 }
                if occupant == nil, let found = try? fileSystem.status(absolute(server.path)) {
                    if found.kind == .directory, server.type == .folder, row == nil {
                        scope.directoryAtPath = true
                    } else {
                        // Something the index does not know yet: record it first.
                        try reconcile([EngineInbox.Scope(path: server.path, subtree: false)])
                        occupant = try readIndex { db in try db.item(at: server.path) }.flatMap { $0.recordName == name ? nil : $0 }
                        if occupant == nil {
                            let rows = try readIndex { db in try IndexItem.fetchAll(db, sql: "SELECT * FROM item WHERE path = ?", arguments: [server.path.string]) }
                            logger.debug("an item the index does not claim is in a record's way", metadata: [
                                "path": "\(server.path)", "kind": "\(found.kind)", "rows": "\(rows.map { "\($0.recordName) pending \($0.pending)" })"])
                        }
                    }
                }
                if let found = occupant, found.pending == .save, !found.isPlaceholder,
                   (try? fileSystem.status(absolute(found.path))).flatMap({ $0.map(found.matches) }) != true {
                    // An edited item in the way that changed or went since it was recorded.
                    try reconcile([EngineInbox.Scope(path: found.path, subtree: false)])
                    occupant = try readIndex { db in try db.item(at: server.path) }.flatMap { $0.recordName == name ? nil : $0 }
                }
                if var occupant {
                    try readEditedContent(&occupant)
                    scope.occupant = localItem(occupant)
                    scope.occupantDeleted = deletedInFetch.contains(occupant.recordName)
                    if occupant.kind == .folder { scope.occupantHasLiveChildren = try hasLiveChildren(occupant) }
                    rows[occupant.recordName] = occupant
                }
            }
            scope.pathsInUse = conflictNamesInUse(for: rows.values.filter { $0.pending == .save || $0.recordName != name }, server: server)
        }
        return ObservedScope(scope: scope, rows: rows)
    }

    /// Reads the content of an item changed here whose content is not read yet: the planner
    /// compares contents by digest.
    private func readEditedContent(_ row: inout IndexItem) throws(SyncError) {
        if row.pending == .save, row.needsRead { try readContent(&row) }
    }

    /// The planner's view of an index row.
    func localItem(_ row: IndexItem) -> LocalItem {
        let change = row.pending.change
        return LocalItem(recordName: row.recordName, change: change, isPlaceholder: row.isPlaceholder, ancestor: row.acked,
                         observed: row.record(zone: configuration.zone, device: configuration.device),
                         onlyMovedByEngine: change == .edited && ((try? onlyMovedByEngine(row)) ?? false))
    }

    /// Whether live items (not pending deletion) lie beneath the folder `row`.
    private func hasLiveChildren(_ row: IndexItem) throws(SyncError) -> Bool {
        try readIndex { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM item WHERE path >= ? AND path < ? AND pending != 2)",
                              arguments: [row.path.string + "/", row.path.string + "0"]) ?? false  // "0" follows "/"
        }
    }

    /// The conflict-copy names the planner may pick for `rows` (a copy beside a changed item,
    /// at its path or at the server's, or an item moved aside) that are in use now.
    private func conflictNamesInUse(for rows: [IndexItem], server: DocSyncCore.Record) -> Set<RelativePath> {
        var inUse = Set<RelativePath>()
        for row in rows {
            for base in Set([row.path, server.path]) {
                _ = ConflictName.copyPath(for: base, device: configuration.device, time: row.modified) { [self] candidate in
                    guard isTaken(candidate) else { return false }
                    inUse.insert(candidate)
                    return true
                }
            }
        }
        return inUse
    }

    /// Whether `path` is in use, on disk (anything there, a dangling symlink too: a move
    /// would refuse it) or by an item of the index.
    func isTaken(_ path: RelativePath) -> Bool {
        ((try? fileSystem.status(absolute(path))) ?? nil) != nil || ((try? index.readLatest { db in try db.item(at: path) }) ?? nil) != nil
    }

    /// The folder's settings, as the planner follows them.
    var plannerSettings: PlannerSettings {
        PlannerSettings(device: configuration.device, conflictPolicy: configuration.conflictPolicy, onDemand: configuration.onDemand,
                        textMerge: configuration.textMerge)
    }
}
