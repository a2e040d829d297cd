import DocSyncCore
import DocSyncStorage
import Foundation
import GRDB

/// A fetch from scratch (the change token expired, the zone was recreated) sends every live
/// record again; what it does not send is gone from the server. Such a fetch can be cut short
/// (a rate limit, a restart) after some pages, and goes on later from the token stored with
/// the last page applied: so the records known here that it has not sent yet are kept in
/// the index (`unconfirmed`) until it completes, and only then settled. A joining device's
/// first fetch is such a fetch too, and its new local items are settled with the rest.
extension Fetcher {
    /// A fetch from scratch begins: every acknowledged item's record and every folder record
    /// waiting for its path is unconfirmed.
    func beginRefetch() throws(SyncError) {
        try writeIndex { db in
            try db.execute(sql: "INSERT OR IGNORE INTO unconfirmed (recordName) SELECT recordName FROM item WHERE acked IS NOT NULL")
            try db.execute(sql: "INSERT OR IGNORE INTO unconfirmed (recordName) SELECT recordName FROM shadowedFolder")
        }
    }

    /// The server sent `records`: they are confirmed (nothing to do outside a refetch).
    func confirmSeen(_ records: [DocSyncCore.Record]) throws(SyncError) {
        guard !records.isEmpty, try anyUnconfirmed() else { return }
        try writeIndex { db in
            let statement = try db.cachedStatement(sql: "DELETE FROM unconfirmed WHERE recordName = ?")
            for record in records { try statement.execute(arguments: [record.id.recordName]) }
        }
    }

    private func anyUnconfirmed() throws(SyncError) -> Bool {
        try readIndex { db in try db.hasRows("unconfirmed") }
    }

    /// After a complete fetch: what a fetch from scratch did not account for, decided by
    /// `UnseenItemsPlanner` from Recently Deleted. The acknowledged items whose records it
    /// never sent: those Recently Deleted lists were deleted elsewhere while the token was
    /// stale, and are applied as remote deletions (SPEC §4a); the others the server forgot,
    /// and are sent again rather than deleted: nothing is lost. When the fetch joined the
    /// zone, the new local items at the paths of deleted records: one that is exactly a
    /// deleted record's last version is that deletion arriving late — it takes the record
    /// and the deletion is applied (the file goes to the version store, nothing is
    /// uploaded); one that differs is an edit, and is sent. Waiting folder records the fetch
    /// never sent are forgotten, and the join is over.
    func settleUnseen(loop: inout EngineLoop) async throws(SyncError) {
        let joining = try joinUnfinished()
        if !joining, try !anyUnconfirmed() { return }
        let unseen = try readIndex { db in try String.fetchAll(db, sql: "SELECT recordName FROM unconfirmed") }
        var items = try readIndex { db in
            try unseen.compactMap { name in
                try db.item(named: name)?.acked.map { UnseenItemsPlanner.Item(recordName: name, acknowledged: true, observed: $0) }
            }
        }
        // A joining device's new items are looked at only when there are some (a device
        // joining with an empty folder asks nothing more); a send-only folder sends what it has.
        var joiningWithItems = false
        if joining, configuration.direction != .sendOnly {
            joiningWithItems = try readIndex { db in
                try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM item WHERE acked IS NULL AND pending = 1)") ?? false
            }
        }
        var recentlyDeleted: [DocSyncCore.Record]?
        if !items.isEmpty || joiningWithItems {
            do {
                recentlyDeleted = try await backend.listDeleted(in: configuration.zone, since: nil).map(\.record)
            } catch where error.isTransient {
                throw error
            } catch {
                // A backend that keeps no Recently Deleted: what it did not send is sent again.
                logger.warning("cannot list Recently Deleted; items the server did not send are sent again", metadata: ["error": "\(error)"])
            }
        }
        if joiningWithItems, let deleted = recentlyDeleted, !deleted.isEmpty {
            items += try joiningItems(at: deleted)
        }
        var sendAgain: [String] = []
        for decision in UnseenItemsPlanner.plan(items, recentlyDeleted: recentlyDeleted) {
            switch decision {
            case .deletedElsewhere(let name):
                try await engine.applyRemoteDeletion(name, loop: &loop)
            case .deletionArrivedLate(let name, let deleted):
                if try takeDeletedRecord(deleted, for: name) { try await engine.applyRemoteDeletion(deleted.id.recordName, loop: &loop) }
            case .sendAgain(let name):
                sendAgain.append(name)
            }
        }
        try writeIndex { db in
            try engine.forgetAcknowledgements(db, only: sendAgain)
            try db.execute(sql: "DELETE FROM shadowedFolder WHERE recordName IN (SELECT recordName FROM unconfirmed)")
            try db.execute(sql: "DELETE FROM unconfirmed")
            try db.setEngineValue(EngineKeys.joining, nil)
        }
    }

    // MARK: joining

    /// A first fetch into an index that never had anything acknowledged begins: the folder
    /// joins the zone until a fetch completes (`settleUnseen`), across restarts and fetches
    /// cut short. Until then nothing is sent, and an older local file that collides with a
    /// record is a stale copy (`RemoteChangeScope.joining`).
    func beginJoining() throws(SyncError) {
        try writeIndex { db in try db.setEngineValue(EngineKeys.joining, Data([1])) }
    }

    /// Whether the folder is joining its zone (`beginJoining`): its first fetch has not completed.
    func joinUnfinished() throws(SyncError) -> Bool {
        try readIndex { db in try db.engineValue(EngineKeys.joining) != nil }
    }

    /// The new (never acknowledged) items at the paths of `deleted` (Recently Deleted's
    /// records), as `UnseenItemsPlanner` compares them: the documents it needs digests of
    /// are read first. A file that cannot be read stays new, and is dealt with as usual.
    private func joiningItems(at deleted: [DocSyncCore.Record]) throws(SyncError) -> [UnseenItemsPlanner.Item] {
        var rows = try readIndex { db in
            let statement = try db.cachedStatement(sql: "SELECT * FROM item WHERE path = ? AND acked IS NULL AND pending = 1")
            var found: [String: IndexItem] = [:]
            for path in Set(deleted.map(\.path)) {
                for row in try IndexItem.fetchAll(statement, arguments: [path.string]) { found[row.recordName] = row }
            }
            return found
        }
        func items() -> [UnseenItemsPlanner.Item] {
            rows.values.map { UnseenItemsPlanner.Item(recordName: $0.recordName, acknowledged: false,
                                                      observed: $0.record(zone: configuration.zone, device: configuration.device)) }
        }
        for name in UnseenItemsPlanner.contentToRead(items(), recentlyDeleted: deleted) {
            guard var row = rows[name] else { continue }
            do { try engine.readContent(&row) } catch {
                logger.debug("a joining file at a deleted record's path could not be read; it stays new", metadata: ["path": "\(row.path)", "error": "\(error)"])
                continue
            }
            rows[name] = row
        }
        return items()
    }

    /// The joining item `name` is `deleted`'s last version: it becomes that record's item,
    /// as the server acknowledged it, so that the deletion applies to it as any remote
    /// deletion does — and, until the join is settled, an unconfirmed one, so that a
    /// deletion cut short is applied when the settling is tried again. False (nothing
    /// changed) when the item is gone or changed since it was looked at, or when the index
    /// already has an item of that record.
    private func takeDeletedRecord(_ deleted: DocSyncCore.Record, for name: String) throws(SyncError) -> Bool {
        try writeIndex { db in
            guard var row = try db.item(named: name), row.acked == nil, row.pending == .save,
                  try db.item(named: deleted.id.recordName) == nil else { return false }
            row.recordName = deleted.id.recordName
            row.settle(acked: deleted)
            let taken = row
            // The taken row first: chunk locations may only name an existing item.
            try taken.insert(db)
            try db.execute(sql: "UPDATE chunkLocation SET recordName = ? WHERE recordName = ?", arguments: [taken.recordName, name])
            try db.deleteItem(named: name)
            try db.execute(sql: "INSERT OR IGNORE INTO unconfirmed (recordName) VALUES (?)", arguments: [taken.recordName])
            logger.info("joining: this file is what another device deleted (the deletion arrived late); it goes to the version store, not to the server",
                        metadata: ["path": "\(taken.path)", "record": "\(taken.recordName)"])
            return true
        }
    }
}
