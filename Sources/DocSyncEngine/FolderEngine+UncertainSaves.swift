import DocSyncCore
import DocSyncStorage
import Foundation
import GRDB

/// Saves sent but never answered: the connection failed after the request left, so each
/// may have landed. A record that later comes back (fetched, or in a conflict's answer) with
/// exactly the fields this device sent is this device's own save, not a change made
/// elsewhere: it becomes the item's acknowledged record. Without this, an item deleted here
/// before the answer was known comes back — its deletion, based on the older record, loses
/// to what looks like another device's edit, or (a new record) nothing is sent at all and
/// the record arrives as someone else's.
extension FolderEngine {
    /// Remembers `records` (just sent, unanswered).
    func noteUncertainSaves(_ records: [DocSyncCore.Record]) throws(SyncError) {
        guard !records.isEmpty else { return }
        try writeIndex { db in
            let statement = try db.cachedStatement(sql: "INSERT OR REPLACE INTO uncertainSave (recordName, record) VALUES (?, ?)")
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

    /// Settles the remembered saves that `changed` and `deleted` (the server's records, and
    /// its deletions) answer. Returns the names of the records found to be this device's own
    /// saves: they are not applied as remote changes. Such a record becomes its item's
    /// acknowledged one; for an item deleted here meanwhile (its row gone, as nothing had been
    /// acknowledged) a pending deletion is made, sent conditionally on the server's tag — also
    /// when another device has only moved the record to another folder since.
    @discardableResult
    func settleUncertainSaves(changed: [DocSyncCore.Record], deleted: [String] = []) throws(SyncError) -> Set<String> {
        guard !changed.isEmpty || !deleted.isEmpty,
              try readIndex({ db in try db.hasRows("uncertainSave") })
        else { return [] }
        return try writeIndex { db in
            let forget = try db.cachedStatement(sql: "DELETE FROM uncertainSave WHERE recordName = ?")
            var sent: [String: DocSyncCore.Record] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT recordName, record FROM uncertainSave") {
                let name: String = row["recordName"]
                if let record = try? CompactCoding.decodeRecord(row["record"] as Data) { sent[name] = record } else { try forget.execute(arguments: [name]) }
            }
            logger.trace("answers for unanswered saves", metadata: ["remembered": "\(sent.keys.sorted())", "changed": "\(changed.map(\.id.recordName).filter { sent[$0] != nil })",
                                                                   "deleted": "\(deleted.filter { sent[$0] != nil })"])
            for name in deleted where sent[name] != nil { try forget.execute(arguments: [name]) }
            var own = Set<String>()
            for record in changed {
                let name = record.id.recordName
                guard let mine = sent[name] else { continue }
                try forget.execute(arguments: [name])
                let existing = try db.item(named: name)
                // For an item deleted here, its save also counts as landed when another device
                // only moved the record along with a folder since (a move is no edit).
                guard sameFields(record, mine) || (existing == nil && RemoteChangePlanner.onlyRelocated(mine, record)) else { continue }
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
        let remembered: [String: DocSyncCore.Record] = try readIndex { db in
            var found: [String: DocSyncCore.Record] = [:]
            let statement = try db.cachedStatement(sql: "SELECT record FROM uncertainSave WHERE recordName = ?")
            for name in names {
                if let data = try Data.fetchOne(statement, arguments: [name]), let record = try? CompactCoding.decodeRecord(data) { found[name] = record }
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
        for (name, mine) in absent.sorted(by: { $0.key < $1.key }) where deletedElsewhere.contains(name) {
            guard let current = try readIndex({ db in try db.item(named: name) }), current.kind != .folder, current.acked == nil, current.pending == .save,
                  sameFields(current.record(zone: configuration.zone, device: configuration.device), mine) else { continue }
            logger.info("a save whose answer was lost landed and was deleted on another device since; the deletion wins",
                        metadata: ["path": "\(current.path)", "record": "\(name)"])
            try deleteToVersionStore(current)
            try forgetAnswered([name])
            dropped.insert(name)
        }
        return dropped
    }
}
