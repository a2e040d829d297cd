import DocSyncCore
import Foundation
import GRDB

/// The first step of applying a remote change: looking at the disk where the change lands
/// and reading the planner's input (`RemoteChangeScope`) from the index. Looking only reads: a
/// local change found there and not recorded yet is named (`unrecordedItemChange`,
/// `unrecordedChangeInTheWay`) and the local scan records it (`recordLocalChanges`) before the
/// change is observed, so an edit is never taken for the file a remote change replaces or deletes.
///
/// The observe job owns nothing: it reads the index and the disk, and the loop's state it
/// is given (the ignore rules, whether the fetch joins the zone).
struct Observer: EngineJob {
    let engine: FolderEngine
}

extension Observer {
    /// The scope of one remote change, and the index rows of the items it names (by record
    /// name), which the executor works on.
    struct ObservedScope {
        var scope: RemoteChangeScope
        var rows: [String: IndexItem]
    }

    /// The local change the index has not recorded in the item `change` names (`row`, its
    /// index row): changed here, gone, or a folder whose contents a deletion must see. Reads only.
    func unrecordedItemChange(_ change: RemoteChange, row: IndexItem?) -> EngineInbox.Scope? {
        switch change {
        case .deleted:
            guard let row, row.pending == .none, !row.isPlaceholder else { return nil }
            let stat = try? fileSystem.status(absolute(row.path))
            guard stat.map({ !row.matches($0) }) ?? true || row.kind == .folder else { return nil }
            return EngineInbox.Scope(path: row.path, subtree: row.kind == .folder)
        case .saved(let server):
            guard let known = row, known.pending != .delete, !known.isPlaceholder, known.acked?.changeTag != server.changeTag,
                  !((try? fileSystem.status(absolute(known.path))).flatMap { $0.map(known.matches) } ?? false) else { return nil }
            // A local change the watcher has not reported yet (or an edited file gone since,
            // a plan cut short having moved it aside).
            return EngineInbox.Scope(path: known.path, subtree: false)
        }
    }

    /// The local change the index has not recorded at `server`'s path, when the item (`row`)
    /// is not there: something the index does not know yet, or an edited item there that
    /// changed or went since it was recorded. Reads only.
    func unrecordedChangeInTheWay(of server: DocSyncCore.Record, row: IndexItem?) throws(SyncError) -> EngineInbox.Scope? {
        guard row?.path != server.path || row?.pending == .delete else { return nil }
        let name = server.id.recordName
        if let occupant = try readIndex({ db in try db.item(at: server.path) }).flatMap({ $0.recordName == name ? nil : $0 }) {
            guard occupant.pending == .save, !occupant.isPlaceholder,
                  (try? fileSystem.status(absolute(occupant.path))).flatMap({ $0.map(occupant.matches) }) != true else { return nil }
            return EngineInbox.Scope(path: occupant.path, subtree: false)
        }
        // A directory for a new folder record is taken as that folder, not recorded.
        guard let found = try? fileSystem.status(absolute(server.path)),
              !(found.kind == .directory && server.type == .folder && row == nil) else { return nil }
        return EngineInbox.Scope(path: server.path, subtree: false)
    }

    /// What the planner needs to decide `change`, read from the index and the disk (local
    /// changes there recorded first: `recordLocalChanges`). `deletedInFetch` names the records
    /// the same fetch deletes (an item in a saved record's way may be one of them). Reads only.
    /// `loop` gives the ignore rules and whether the fetch joins the zone.
    func observe(_ change: RemoteChange, deletedInFetch: Set<String> = [], loop: EngineLoop) throws(SyncError) -> ObservedScope {
        var scope = RemoteChangeScope(change: change, freshRecordName: "", joining: loop.joining)
        var rows: [String: IndexItem] = [:]
        let name = change.recordName
        switch change {
        case .deleted:
            guard var row = try readIndex({ db in try db.item(named: name) }) else { return ObservedScope(scope: scope, rows: rows) }
            try readEditedContent(&row)
            scope.item = localItem(row)
            rows[name] = row
            if row.kind == .folder { scope.hasLiveChildren = try hasLiveChildren(row) }
        case .saved(let server):
            if loop.scanner.isIgnored(server.path, isDirectory: server.type == .folder) {
                scope.isIgnored = true
                return ObservedScope(scope: scope, rows: rows)
            }
            let row = try readIndex { db in try db.item(named: name) }
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
                let occupant = try readIndex { db in try db.item(at: server.path) }.flatMap { $0.recordName == name ? nil : $0 }
                if occupant == nil, let found = try? fileSystem.status(absolute(server.path)) {
                    if found.kind == .directory, server.type == .folder, row == nil {
                        scope.directoryAtPath = true
                    } else {
                        let rows = try readIndex { db in try IndexItem.fetchAll(db, sql: "SELECT * FROM item WHERE path = ?", arguments: [server.path.string]) }
                        logger.debug("an item the index does not claim is in a record's way", metadata: [
                            "path": "\(server.path)", "kind": "\(found.kind)", "rows": "\(rows.map { "\($0.recordName) pending \($0.pending)" })"])
                    }
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
        if row.pending == .save, row.needsRead { try engine.readContent(&row) }
    }

    /// The planner's view of an index row.
    func localItem(_ row: IndexItem) -> LocalItem {
        let change = row.pending.change
        return LocalItem(recordName: row.recordName, change: change, isPlaceholder: row.isPlaceholder, ancestor: row.acked,
                         observed: row.record(zone: configuration.zone, device: configuration.device),
                         onlyMovedByEngine: change == .edited && ((try? engine.onlyMovedByEngine(row)) ?? false))
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
                _ = ConflictName.copyPath(for: base, device: engine.copyLabel, time: row.modified) { [self] candidate in
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
        PlannerSettings(device: configuration.device, copyLabel: engine.copyLabel, conflictPolicy: configuration.conflictPolicy, onDemand: configuration.onDemand,
                        textMerge: configuration.textMerge)
    }
}
