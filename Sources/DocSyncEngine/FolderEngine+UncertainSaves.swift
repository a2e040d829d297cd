import DocSyncCore
import DocSyncStorage
import Foundation
import GRDB

/// Saves sent but never answered: the connection failed after the request left, so each
/// may have landed. Every version of a record sent since its last answer is remembered. A
/// record that later comes back (fetched, or in a conflict's answer) with exactly the fields
/// of one of them is this device's own save, not a change made elsewhere: it becomes the
/// item's acknowledged record. A record deleted elsewhere whose last version (in Recently
/// Deleted) is one of them was deleted by someone who had this device's save. Without this,
/// an item deleted here before the answer was known comes back — its deletion, based on the
/// older record, loses to what looks like another device's edit, or (a new record) nothing
/// is sent at all and the record arrives as someone else's — and an item whose save another
/// device saw and deleted comes back as if edited here.
extension FolderEngine {
    /// Remembers `records` (just sent, unanswered), beside the versions of them sent before
    /// and not answered yet.
    func noteUncertainSaves(_ records: [DocSyncCore.Record]) throws(SyncError) {
        guard !records.isEmpty else { return }
        try writeIndex { db in
            let statement = try db.cachedStatement(sql: "INSERT OR IGNORE INTO uncertainSave (recordName, record) VALUES (?, ?)")
            for record in records { try statement.execute(arguments: [record.id.recordName, CompactCoding.encode(record)]) }
        }
    }

    /// Forgets what was remembered of `names` until an answer came (an uncertain save, a
    /// move aside): a later save or deletion of each was answered.
    func forgetAnswered(_ names: [String]) throws(SyncError) {
        guard !names.isEmpty, try readIndex({ db in try db.hasRows("uncertainSave") || db.hasRows("movedAside") }) else { return }
        try writeIndex { db in
            let uncertain = try db.cachedStatement(sql: "DELETE FROM uncertainSave WHERE recordName = ?")
            let movedAside = try db.cachedStatement(sql: "DELETE FROM movedAside WHERE recordName = ?")
            for name in names {
                try uncertain.execute(arguments: [name])
                try movedAside.execute(arguments: [name])
            }
        }
    }

    /// The names of the records among `names` with unanswered saves remembered.
    func uncertainlySaved(among names: [String]) throws(SyncError) -> Set<String> {
        guard !names.isEmpty, try readIndex({ db in try db.hasRows("uncertainSave") }) else { return [] }
        return try readIndex { db in
            let statement = try db.cachedStatement(sql: "SELECT 1 FROM uncertainSave WHERE recordName = ? LIMIT 1")
            return try Set(names.filter { try Bool.fetchOne(statement, arguments: [$0]) ?? false })
        }
    }

    /// The last versions (from Recently Deleted) of the records among `deleted` that have
    /// unanswered saves remembered: what `settleUncertainSaves` needs to tell whether their
    /// deleter had this device's save. Empty when the backend keeps no Recently Deleted.
    func lastVersionsOfUncertainlySaved(deleted: [String]) async throws(SyncError) -> [String: DocSyncCore.Record] {
        let names = try uncertainlySaved(among: deleted)
        guard !names.isEmpty else { return [:] }
        do {
            let listed = try await backend.listDeleted(in: configuration.zone, since: nil)
            return Dictionary(listed.filter { names.contains($0.record.id.recordName) }.map { ($0.record.id.recordName, $0.record) }, uniquingKeysWith: { newest, _ in newest })
        } catch where error.isTransient {
            throw error
        } catch {
            return [:]  // a backend that keeps no Recently Deleted: an edit here stays an edit
        }
    }

    /// Settles the remembered saves that `changed` and `deleted` (the server's records, and
    /// its deletions) answer. Returns the names of the records found to be this device's own
    /// saves: they are not applied as remote changes. Such a record becomes its item's
    /// acknowledged one; for an item deleted here meanwhile (its row gone, as nothing had been
    /// acknowledged) a pending deletion is made, sent conditionally on the server's tag — also
    /// when another device has only moved the record to another folder since (so too for an
    /// item whose deletion here waits to be sent).
    ///
    /// A deleted record whose last version (`deletedVersions`, from Recently Deleted) is one
    /// this device sent was deleted by a device that had that save: that version becomes
    /// the item's acknowledged record, so the deletion wins unless the item changed here
    /// since (then the item is still an edit, and the edit wins). Likewise a new record whose
    /// one unanswered create is followed by another version: the create landed and the
    /// other device edited on top of it, so it replaces an item unchanged here since (no
    /// conflict copy), and is merged against it otherwise.
    @discardableResult
    func settleUncertainSaves(changed: [DocSyncCore.Record], deleted: [String] = [],
                              deletedVersions: [String: DocSyncCore.Record] = [:]) throws(SyncError) -> Set<String> {
        guard !changed.isEmpty || !deleted.isEmpty,
              try readIndex({ db in try db.hasRows("uncertainSave") })
        else { return [] }
        return try writeIndex { db in
            let forget = try db.cachedStatement(sql: "DELETE FROM uncertainSave WHERE recordName = ?")
            var sent: [String: [DocSyncCore.Record]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT recordName, record FROM uncertainSave") {
                let name: String = row["recordName"]
                if let record = try? CompactCoding.decodeRecord(row["record"] as Data) { sent[name, default: []].append(record) }
            }
            logger.trace("answers for unanswered saves", metadata: ["remembered": "\(sent.keys.sorted())", "changed": "\(changed.map(\.id.recordName).filter { sent[$0] != nil })",
                                                                   "deleted": "\(deleted.filter { sent[$0] != nil })"])
            for name in deleted {
                guard let versions = sent[name] else { continue }
                try forget.execute(arguments: [name])
                guard let last = deletedVersions[name], versions.contains(where: { last.isSameRecord(as: $0) }),
                      var row = try db.item(named: name), row.acked?.changeTag != last.changeTag else { continue }
                // Deleted by a device that had this save: the save is the ancestor of the deletion.
                try takeAsAncestor(last, &row, in: db)
            }
            var own = Set<String>()
            for record in changed {
                let name = record.id.recordName
                guard let versions = sent[name] else { continue }
                try forget.execute(arguments: [name])
                let existing = try db.item(named: name)
                // For an item deleted here (its row gone, or waiting to send the deletion), its
                // save also counts as landed when another device only moved the record along
                // with a folder since (a move is no edit).
                let deletedHere = existing == nil || existing?.pending == .delete
                guard versions.contains(where: { mine in record.isSameRecord(as: mine) || (deletedHere && RemoteChangePlanner.onlyRelocated(mine, record)) })
                else {
                    if var row = existing, let create = versions.first, versions.count == 1, create.changeTag == nil, row.acked == nil {
                        // A new record that exists: its one create landed, and the server's
                        // version was made on top of it — the ancestor of both sides.
                        try takeAsAncestor(create, &row, in: db)
                    }
                    continue
                }
                own.insert(name)
                if var row = existing {
                    // This device's own save: its answer, at last.
                    row.acked = record
                    try row.update(db)
                    continue
                }
                // Deleted here before the answer came: the deletion is sent after all.
                var row = IndexItem(recordName: name, path: record.path, kind: record.type,
                                    stat: FileStat(kind: FileStat.Kind(record.type), size: record.size, modified: record.modified, inode: 0, device: 0, mode: record.mode))
                row.take(record)
                row.acked = record
                row.pending = .delete
                row.needsRead = false
                try row.insert(db)
                logger.info("a save whose answer was lost landed; the item was deleted here since, so its deletion is sent",
                            metadata: ["path": "\(record.path)", "record": "\(name)"])
            }
            return own
        }
    }

    /// `landed`, a save of this device's that landed, is the ancestor of the server's
    /// version of `row`'s record: it becomes the acknowledged record, and the row has nothing
    /// to send unless the item changed here since (then it is an edit on top of `landed`).
    private func takeAsAncestor(_ landed: DocSyncCore.Record, _ row: inout IndexItem, in db: Database) throws {
        let unchangedSince = row.pending == .save && !row.needsRead && row.record(zone: configuration.zone, device: configuration.device).isSameRecord(as: landed)
        if unchangedSince { settle(&row, acked: landed) } else { row.acked = landed }
        try row.update(db)
        logger.debug("a save whose answer was lost landed; another device changed the record since", metadata: ["path": "\(row.path)", "record": "\(row.recordName)",
                                                                                                           "changedHereSince": "\(!unchangedSince)"])
    }

    /// Before new records are sent after an unanswered save of them: a record whose earlier
    /// save landed and was then deleted on another device (the store has no live record and
    /// Recently Deleted lists it) is not created anew by the retry — a backend cannot tell
    /// that retry from a first creation. Unless the item changed here since, the deletion
    /// wins: its file goes to the version store. Returns the names left out of the batch.
    func dropCreatesDeletedElsewhere(_ rows: [IndexItem]) async throws(SyncError) -> Set<String> {
        let names = rows.filter { $0.acked == nil && $0.pending == .save }.map(\.recordName)
        guard !names.isEmpty,
              try readIndex({ db in try db.hasRows("uncertainSave") })
        else { return [] }
        let remembered: [String: [DocSyncCore.Record]] = try readIndex { db in
            var found: [String: [DocSyncCore.Record]] = [:]
            let statement = try db.cachedStatement(sql: "SELECT record FROM uncertainSave WHERE recordName = ?")
            for name in names {
                let versions = try Data.fetchAll(statement, arguments: [name]).compactMap { try? CompactCoding.decodeRecord($0) }
                if !versions.isEmpty { found[name] = versions }
            }
            return found
        }
        guard !remembered.isEmpty else { return [] }
        let live = try await backend.fetchRecords(remembered.keys.sorted().map { RecordID(zone: configuration.zone, recordName: $0) })
        let absent = remembered.filter { live[RecordID(zone: configuration.zone, recordName: $0.key)] == nil }
        guard !absent.isEmpty else { return [] }
        let deletedElsewhere: Set<String>
        do {
            deletedElsewhere = Set(try await backend.listDeleted(in: configuration.zone, since: nil).map(\.record.id.recordName))
        } catch where error.isTransient {
            throw error
        } catch {
            return []  // a backend that keeps no Recently Deleted: the retry goes ahead
        }
        var dropped = Set<String>()
        for (name, versions) in absent.sorted(by: { $0.key < $1.key }) where deletedElsewhere.contains(name) {
            guard let current = try readIndex({ db in try db.item(named: name) }), current.kind != .folder, current.acked == nil, current.pending == .save,
                  versions.contains(where: { current.record(zone: configuration.zone, device: configuration.device).isSameRecord(as: $0) }) else { continue }
            logger.info("a save whose answer was lost landed and was deleted on another device since; the deletion wins",
                        metadata: ["path": "\(current.path)", "record": "\(name)"])
            try deleteToVersionStore(current)
            try forgetAnswered([name])
            dropped.insert(name)
        }
        return dropped
    }
}
