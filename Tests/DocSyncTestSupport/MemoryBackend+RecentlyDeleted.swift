import DocSyncCore
import DocSyncStorage
import Foundation

/// Recently Deleted in `MemoryBackend` (SPEC §4a), as in the embedded backend
/// (`LocalBackend+RecentlyDeleted`): a deletion keeps the record's last version, stamped
/// with the clock and the deleting device; entries as old as `settings.deletedRetention`
/// are never listed or recovered, and a collection removes them.
extension MemoryBackend {
    public func listDeleted(in zone: ZoneID, since: Timestamp?) async throws(SyncError) -> [DeletedRecord] {
        try read { (state, now) throws(SyncError) in
            let cutoff = now.subtracting(seconds: settings.deletedRetention)
            let earliest = since ?? Timestamp(nanosecondsSince1970: .min)
            return try state.requireZone(zone).deleted.values
                .filter { $0.deletedAt > cutoff && $0.deletedAt >= earliest }
                .sorted { ($0.deletedAt, $1.record.id.recordName) > ($1.deletedAt, $0.record.id.recordName) }
        }
    }

    public func recoverDeleted(_ recoveries: [DeletedRecordRecovery], in zone: ZoneID) async throws(SyncError) -> ModifyResult {
        guard recoveries.count <= RecordBatch.maximumItems else {
            throw SyncError(.limitExceeded, "\(recoveries.count) records to recover in one call exceeds \(RecordBatch.maximumItems); split them and resend")
        }
        let result = try write { (state, now) throws(SyncError) in
            try state.recover(recoveries, in: zone, keptAfter: now.subtracting(seconds: settings.deletedRetention))
        }
        if !result.saved.isEmpty { announce([zone]) }
        return result
    }

    /// Empties Recently Deleted as the protocol says, with the versions the purged records
    /// replaced; when that removed anything, a collection runs at once (the embedded
    /// backend starts one soon after), so their chunks go unless kept otherwise.
    public func purgeDeleted(in zone: ZoneID, ids: [RecordID]?) async throws(SyncError) -> Int {
        try write { (state, now) throws(SyncError) in
            guard var stored = state.zones.removeValue(forKey: zone.name) else { throw SyncError.zoneNotFound(zone) }
            let names = ids.map { Set($0.filter { $0.zone == zone }.map(\.recordName)) } ?? Set(stored.deleted.keys)
            var purged = 0
            for name in names where stored.deleted.removeValue(forKey: name) != nil {
                purged += 1
                stored.replaced[name] = nil
            }
            state.zones[zone.name] = stored
            if purged > 0 { state.collectGarbage(at: now, settings: settings) }
            return purged
        }
    }
}

extension MemoryBackendState {
    /// The recover algorithm: each recovery its own result; deletions at or before `cutoff`
    /// have expired.
    mutating func recover(_ recoveries: [DeletedRecordRecovery], in zoneID: ZoneID, keptAfter cutoff: Timestamp) throws(SyncError) -> ModifyResult {
        guard var zone = zones.removeValue(forKey: zoneID.name) else { throw SyncError.zoneNotFound(zoneID) }
        defer { zones[zoneID.name] = zone }
        var result = ModifyResult()
        var seen = Set<RecordID>()
        for id in recoveries.map(\.id) where !seen.insert(id).inserted {
            result.failed[id] = SyncError(.invalidArguments, "\(id) appears more than once in one recovery; name each record once")
        }
        for recovery in recoveries where result.failed[recovery.id] == nil {
            let id = recovery.id, name = id.recordName
            guard id.zone == zoneID else {
                result.failed[id] = SyncError(.invalidArguments, "\(id) is not in the zone \(zoneID) being recovered; recover it in its own zone")
                continue
            }
            if let live = zone.records[name] {
                result.failed[id] = .serverRecordChanged(live.record)
                continue
            }
            guard let entry = zone.deleted[name], entry.deletedAt > cutoff else {
                result.failed[id] = .notRecentlyDeleted(id)
                continue
            }
            var record: DocSyncCore.Record
            do { record = try recovery.recovered(entry.record) } catch {
                result.failed[id] = error
                continue
            }
            if let missing = firstMissingChunk(of: record) {
                result.failed[id] = .deletedChunkGone(record, missing.digest)
                continue
            }
            let seq = nextSeq()
            record.changeTag = ChangeTag(String(seq, radix: 36))
            zone.records[name] = MemoryZone.StoredRecord(record: record, seq: seq)
            zone.tombstones[name] = nil
            zone.deleted[name] = nil
            zone.noteChange(name, at: seq)
            result.saved[id] = record
        }
        return result
    }
}
