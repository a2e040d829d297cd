import DocSyncCore
import Foundation

/// Recently Deleted (SPEC §4a): `modify` keeps each deleted record's last version and each
/// replaced version; these operations list, recover and purge them. Entries past the
/// retention (`StoreRetention`) are never listed or recovered.
extension StoreAlgorithm {
    /// `limitExceeded` for more recoveries than `RecordBatch.maximumItems`, before any transaction.
    public static func admit(_ recoveries: [DeletedRecordRecovery]) throws(SyncError) {
        guard recoveries.count <= RecordBatch.maximumItems else {
            throw SyncError(.limitExceeded, "\(recoveries.count) records to recover in one call exceeds \(RecordBatch.maximumItems); split them and resend")
        }
    }

    /// The records of `zone` in Recently Deleted, deleted after the retention's cutoff and at
    /// or after `since`: newest deletion first, then by the bytes of the record name.
    /// Throws `zoneNotFound`.
    public static func listDeleted(in zone: ZoneID, since: Timestamp?, now: Timestamp, retention: StoreRetention,
                                   _ rows: some StoreRows) throws -> [DeletedRecord] {
        _ = try requireZone(zone, rows)
        let floor = max(retention.versionCutoff(now: now).adding(seconds: 1e-9), since ?? Timestamp(nanosecondsSince1970: .min))
        let entries = try rows.deletedEntries(nil, in: zone.name, since: floor).filter { $0.deletedAt >= floor }
        return try entries.sorted { left, right in
            left.deletedAt != right.deletedAt ? left.deletedAt > right.deletedAt : left.name.utf8.lexicographicallyPrecedes(right.name.utf8)
        }.map { entry throws(SyncError) in
            DeletedRecord(record: try entry.version.record(), deletedAt: entry.deletedAt, deletedBy: entry.deletedBy)
        }
    }

    /// Brings records back from Recently Deleted (`StorageBackend.recoverDeleted`): each at
    /// the path its recovery names (or its last one), last modified by the recovering
    /// device, with a new change tag; out of Recently Deleted. Each item fails on its own:
    /// `invalidArguments` (named twice, another zone, a bad path), `serverRecordChanged`
    /// carrying the live record (it lives again), `unknownItem` (not in Recently Deleted, or
    /// expired), `chunkNotFound` (a chunk of the deleted version is gone). Throws
    /// `zoneNotFound`.
    public static func recover<Rows: StoreRows>(
        _ recoveries: [DeletedRecordRecovery], in zone: ZoneID, now: Timestamp, retention: StoreRetention, in rows: inout Rows
    ) throws -> StoreOutcome<ModifyResult> {
        var seq = try rows.reserveSequence(max(1, recoveries.count))
        _ = try requireZone(zone, rows)
        var result = ModifyResult()
        var seen = Set<RecordID>()
        for id in recoveries.map(\.id) where !seen.insert(id).inserted {
            result.failed[id] = SyncError(.invalidArguments, "\(id) appears more than once in one recovery; name each record once")
        }
        for id in recoveries.map(\.id) where id.zone != zone {
            result.failed[id] = SyncError(.invalidArguments, "\(id) is not in the zone \(zone) being recovered; recover it in its own zone")
        }
        let asked = recoveries.filter { result.failed[$0.id] == nil }
        let names = asked.map(\.id.recordName)
        let live = names.isEmpty ? [:] : try rows.liveVersions(names, in: zone.name)
        var kept: [String: StoredDeletion] = [:]
        if !names.isEmpty {
            for entry in try rows.deletedEntries(names, in: zone.name, since: nil) { kept[entry.name] = entry }
        }
        var candidates: [(RecordID, Record)] = []
        for recovery in asked {
            let id = recovery.id
            if let current = live[id.recordName] {
                result.failed[id] = .serverRecordChanged(try current.record())
                continue
            }
            guard let entry = kept[id.recordName], retention.keepsVersion(stampedAt: entry.deletedAt, now: now) else {
                result.failed[id] = .notRecentlyDeleted(id)
                continue
            }
            do { candidates.append((id, try recovery.recovered(try entry.version.record()))) } catch { result.failed[id] = error }
        }
        let digests = Array(Set(candidates.flatMap { $0.1.asset?.entries.map(\.digest) ?? [] }))
        let stored = digests.isEmpty ? [] : try rows.storedChunks(among: digests)
        var writes = StoreWrites(zone: zone.name, now: now)
        for (id, var record) in candidates {
            if let missing = record.asset?.entries.first(where: { !stored.contains($0.digest) }) {
                result.failed[id] = .deletedChunkGone(record, missing.digest)
                continue
            }
            record.changeTag = ChangeTag(String(seq, radix: 36))
            writes.saves.append(StoreWrites.Save(name: id.recordName, changeTag: record.changeTag!.rawValue, seq: seq, body: CompactCoding.encode(record)))
            writes.leaveRecentlyDeleted.append(id.recordName)
            result.saved[id] = record
            writes.lastSeq = seq
            seq += 1
        }
        guard writes.lastSeq != nil else { return .unchanged(result) }
        try rows.apply(writes)
        return StoreOutcome(result, wrote: true, announces: true)
    }

    /// Empties Recently Deleted of `ids` (`nil`: of every record of `zone`), with the
    /// versions those records replaced; returns how many records left it. Names not listed
    /// (or of another zone) are ignored. Throws `zoneNotFound`.
    public static func purge<Rows: StoreRows>(_ ids: [RecordID]?, in zone: ZoneID, now: Timestamp, in rows: inout Rows) throws -> StoreOutcome<Int> {
        _ = try requireZone(zone, rows)
        let names = ids.map { ids in Array(Set(ids.filter { $0.zone == zone }.map(\.recordName))) }
        if let names, names.isEmpty { return .unchanged(0) }
        let purged = Set(try rows.deletedEntries(names, in: zone.name, since: nil).map(\.name))
        guard !purged.isEmpty else { return .unchanged(0) }
        var writes = StoreWrites(zone: zone.name, now: now)
        writes.purged = purged.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        try rows.apply(writes)
        return StoreOutcome(purged.count, wrote: true, announces: false)
    }
}
