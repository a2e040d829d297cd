import DocSyncCore
import Foundation

extension StoreAlgorithm {
    /// One page of what changed in `zone` after `token` (`StorageBackend.fetchChanges`): at
    /// most `limit` items (and never more than `StorageLimits.maximumPageSize`), oldest
    /// change first, each record once in its latest state, deletions as tombstones; the
    /// token after the page, past the zone's last change when nothing more comes.
    /// Throws `zoneNotFound`, and `changeTokenExpired` for a token of another store, account
    /// or zone, of an earlier incarnation of the zone, or from before compacted tombstones.
    public static func changes(in zone: ZoneID, since token: ChangeToken?, limit: Int, _ rows: some StoreRows) throws -> ChangeSet {
        let since = try token.map { token throws(SyncError) in try StoreChangeToken(token) }
        let pageSize = max(1, min(limit, StorageLimits.maximumPageSize))
        let account = rows.tokenAccount
        let state = try requireZone(zone, rows)
        var after: Int64 = 0
        if let since {
            guard since.account ?? account == account, since.zone == zone.name, since.incarnation == state.incarnation else {
                throw SyncError(.changeTokenExpired, "change token is for \(since.zone == zone.name ? "an earlier incarnation of" : "another zone than") \(zone); fetch from the beginning")
            }
            guard since.seq >= state.compactedThrough else {
                throw SyncError(.changeTokenExpired, "change token of \(zone) predates compacted deletions; fetch from the beginning and reconcile")
            }
            after = since.seq
        }
        let found = try rows.changes(in: zone.name, after: after, limit: pageSize + 1)
        let moreComing = found.count > pageSize
        var changed: [Record] = []
        var deleted: [RecordID] = []
        var position = after
        for row in found.prefix(pageSize) {
            if let body = row.body {
                changed.append(try StoredVersion.decode(body))
            } else {
                deleted.append(RecordID(zone: zone, recordName: row.name))
            }
            position = row.seq
        }
        // A change committed after the zone's state was read may be in the page: the token
        // then stands at the page's last change, never past one not seen.
        if !moreComing { position = max(position, state.lastSeq) }
        return ChangeSet(changed: changed, deleted: deleted, token: Self.token(zone, state, seq: position, account: account),
                         moreComing: moreComing)
    }

    /// The live records of `ids`, all of one zone (`StorageBackend.fetchRecords`); ids
    /// without one are absent. Throws `invalidArguments` for ids of several zones and
    /// `zoneNotFound`.
    public static func records(_ ids: [RecordID], _ rows: some StoreRows) throws -> [RecordID: Record] {
        guard let zone = ids.first?.zone else { return [:] }
        guard ids.allSatisfy({ $0.zone == zone }) else {
            throw SyncError(.invalidArguments, "fetchRecords takes ids of one zone at a time; split the ids by zone")
        }
        _ = try requireZone(zone, rows)
        var found: [RecordID: Record] = [:]
        for version in try rows.liveVersions(ids.map(\.recordName), in: zone.name).values {
            let record = try version.record()
            found[record.id] = record
        }
        return found
    }
}
