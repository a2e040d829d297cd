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
    /// its deletions) answer, as `UncertainSavesPlanner` decides. Returns the names of the
    /// records found to be this device's own saves: they are not applied as remote changes.
    /// `deletedVersions` are the last versions of the deleted records (from Recently Deleted).
    @discardableResult
    func settleUncertainSaves(changed: [DocSyncCore.Record], deleted: [String] = [],
                              deletedVersions: [String: DocSyncCore.Record] = [:]) throws(SyncError) -> Set<String> {
        guard !changed.isEmpty || !deleted.isEmpty,
              try readIndex({ db in try db.hasRows("uncertainSave") })
        else { return [] }
        return try writeIndex { db in
            let remembered = try db.uncertainSaves()
            var rows: [String: IndexItem] = [:]
            for name in Set(changed.map(\.id.recordName) + deleted) where remembered[name] != nil { rows[name] = try db.item(named: name) }
            logger.trace("answers for unanswered saves", metadata: ["remembered": "\(remembered.keys.sorted())", "changed": "\(changed.map(\.id.recordName).filter { remembered[$0] != nil })",
                                                                   "deleted": "\(deleted.filter { remembered[$0] != nil })"])
            let answer = UncertainSavesPlanner.answer(changed: changed, deleted: deleted, deletedVersions: deletedVersions,
                                                      remembered: remembered, items: rows.mapValues(uncertainItem))
            let forget = try db.cachedStatement(sql: "DELETE FROM uncertainSave WHERE recordName = ?")
            for decision in answer.decisions {
                switch decision {
                case .forget(let name):
                    try forget.execute(arguments: [name])
                case .acknowledge(let name, let record):
                    // This device's own save: its answer, at last.
                    guard var row = rows[name] else { continue }
                    row.acked = record
                    try row.update(db)
                    rows[name] = row
                case .sendDeletion(let record):
                    // Deleted here before the answer came: the deletion is sent after all.
                    var row = IndexItem(recordName: record.id.recordName, path: record.path, kind: record.type,
                                        stat: FileStat(kind: FileStat.Kind(record.type), size: record.size, modified: record.modified, inode: 0, device: 0, mode: record.mode))
                    row.take(record)
                    row.acked = record
                    row.pending = .delete
                    row.needsRead = false
                    try row.insert(db)
                    rows[record.id.recordName] = row
                    logger.info("a save whose answer was lost landed; the item was deleted here since, so its deletion is sent",
                                metadata: ["path": "\(record.path)", "record": "\(record.id.recordName)"])
                case .takeAsAncestor(let name, let landed, let settles):
                    guard var row = rows[name] else { continue }
                    if settles { row.settle(acked: landed) } else { row.acked = landed }
                    try row.update(db)
                    rows[name] = row
                    logger.debug("a save whose answer was lost landed; another device changed the record since",
                                 metadata: ["path": "\(row.path)", "record": "\(name)", "changedHereSince": "\(!settles)"])
                }
            }
            return answer.own
        }
    }

    /// An index row as `UncertainSavesPlanner` sees it.
    func uncertainItem(_ row: IndexItem) -> UncertainSavesPlanner.Item {
        UncertainSavesPlanner.Item(change: row.pending.change, contentRead: !row.needsRead,
                                   observed: row.record(zone: configuration.zone, device: configuration.device), acknowledged: row.acked)
    }

    /// Before new records are sent after an unanswered save of them: a record whose earlier
    /// save landed and was then deleted on another device (the store has no live record and
    /// Recently Deleted lists it) is not created anew by the retry — a backend cannot tell
    /// that retry from a first creation. Unless the item changed here since, the deletion
    /// wins (`UncertainSavesPlanner.createsDeletedElsewhere`): its file goes to the version
    /// store. Returns the names left out of the batch.
    func dropCreatesDeletedElsewhere(_ rows: [IndexItem]) async throws(SyncError) -> Set<String> {
        let creates = rows.filter { $0.acked == nil && $0.pending == .save }
        guard !creates.isEmpty, try readIndex({ db in try db.hasRows("uncertainSave") }) else { return [] }
        let remembered = try readIndex { db in try db.uncertainSaves(of: creates.map(\.recordName)) }
        let items = Dictionary(creates.map { ($0.recordName, uncertainItem($0)) }, uniquingKeysWith: { first, _ in first })
        let checked = UncertainSavesPlanner.createsToCheck(items, remembered: remembered)
        guard !checked.isEmpty else { return [] }
        let live = Set(try await backend.fetchRecords(checked.map { RecordID(zone: configuration.zone, recordName: $0) }).keys.map(\.recordName))
        guard checked.contains(where: { !live.contains($0) }) else { return [] }
        let deletedElsewhere: Set<String>
        do {
            deletedElsewhere = Set(try await backend.listDeleted(in: configuration.zone, since: nil).map(\.record.id.recordName))
        } catch where error.isTransient {
            throw error
        } catch {
            return []  // a backend that keeps no Recently Deleted: the retry goes ahead
        }
        var dropped = Set<String>()
        for name in checked {
            // Each item as it is now: the answers above took a while, and each drop writes the index.
            guard let row = try readIndex({ db in try db.item(named: name) }),
                  UncertainSavesPlanner.createsDeletedElsewhere([name], items: [name: uncertainItem(row)], remembered: remembered,
                                                                live: live, recentlyDeleted: deletedElsewhere) == [name]
            else { continue }
            logger.info("a save whose answer was lost landed and was deleted on another device since; the deletion wins",
                        metadata: ["path": "\(row.path)", "record": "\(name)"])
            try executor.deleteToVersionStore(row)
            try forgetAnswered([name])
            dropped.insert(name)
        }
        return dropped
    }
}

extension Database {
    /// The versions remembered of unanswered saves (`uncertainSave`), by record name, in
    /// the order they were sent; with `names`, of those records only.
    func uncertainSaves(of names: [String]? = nil) throws -> [String: [DocSyncCore.Record]] {
        var found: [String: [DocSyncCore.Record]] = [:]
        if let names {
            let statement = try cachedStatement(sql: "SELECT record FROM uncertainSave WHERE recordName = ?")
            for name in names {
                let versions = try Data.fetchAll(statement, arguments: [name]).compactMap { try? CompactCoding.decodeRecord($0) }
                if !versions.isEmpty { found[name] = versions }
            }
            return found
        }
        for row in try Row.fetchAll(self, sql: "SELECT recordName, record FROM uncertainSave") {
            let name: String = row["recordName"]
            if let record = try? CompactCoding.decodeRecord(row["record"] as Data) { found[name, default: []].append(record) }
        }
        return found
    }
}
