import DocSyncCore
import DocSyncStorage
import GRDB

/// A fetch from scratch (the change token expired, the zone was recreated) sends every live
/// record again; what it does not send is gone from the server. Such a fetch can be cut short
/// (a rate limit, a restart) after some pages, and goes on later from the token stored with
/// the last page applied: so the records known here that it has not sent yet are kept in
/// the index (`unconfirmed`) until it completes, and only then settled.
extension FolderEngine {
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

    /// After a complete fetch: the records a fetch from scratch never sent. Those Recently
    /// Deleted lists were deleted elsewhere while the token was stale, and are applied as
    /// remote deletions (SPEC §4a); the others the server forgot, and are sent again rather
    /// than deleted: nothing is lost. Waiting folder records it never sent are forgotten.
    func settleUnseen() async throws(SyncError) {
        guard try anyUnconfirmed() else { return }
        let unseen = try readIndex { db in try String.fetchAll(db, sql: "SELECT recordName FROM unconfirmed") }
        let acknowledged = try readIndex { db in
            try unseen.filter { name in try db.item(named: name)?.acked != nil }
        }
        var deletedElsewhere = Set<String>()
        if !acknowledged.isEmpty {
            do {
                deletedElsewhere = Set(try await backend.listDeleted(in: configuration.zone, since: nil).map(\.record.id.recordName))
            } catch where error.isTransient {
                throw error
            } catch {
                // A backend that keeps no Recently Deleted: what it did not send is sent again.
                logger.warning("cannot list Recently Deleted; items the server did not send are sent again", metadata: ["error": "\(error)"])
            }
        }
        let rows = try readIndex { db in try acknowledged.filter(deletedElsewhere.contains).compactMap { try db.item(named: $0) } }
        for row in rows.sorted(by: { $0.path.depth > $1.path.depth }) {
            try await applyRemoteDeletion(row.recordName)
        }
        try writeIndex { db in
            try forgetAcknowledgements(db, only: acknowledged.filter { !deletedElsewhere.contains($0) })
            try db.execute(sql: "DELETE FROM shadowedFolder WHERE recordName IN (SELECT recordName FROM unconfirmed)")
            try db.execute(sql: "DELETE FROM unconfirmed")
        }
    }
}
