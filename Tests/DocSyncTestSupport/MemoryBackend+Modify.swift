import DocSyncCore
import DocSyncStorage
import Foundation

/// The modify algorithm of `MemoryBackend`, the embedded backend's (`LocalBackend+Modify`)
/// on plain values: every item is decided against the store as it was before the batch,
/// then — unless an atomic batch has a failure — the good ones are applied in order, saves
/// first, each taking the next sequence value.
extension MemoryBackendState {
    /// Item errors found without looking at stored state: wrong zone, invalid record, an id
    /// named twice in one batch, a deleting device's name that is not a device name.
    static func itemProblems(of batch: RecordBatch) -> [RecordID: SyncError] {
        var failed: [RecordID: SyncError] = [:]
        var named = Set<RecordID>()
        for id in batch.saves.map(\.id) + batch.deletions.map(\.id) {
            if !named.insert(id).inserted {
                failed[id] = SyncError(.invalidArguments, "\(id) appears more than once in one batch; send each record once")
            } else if id.zone != batch.zone {
                failed[id] = SyncError(.invalidArguments, "\(id) is not in the batch's zone \(batch.zone); send it in a batch of its own zone")
            }
        }
        for record in batch.saves where failed[record.id] == nil {
            do { try record.validate() } catch { failed[record.id] = error }
        }
        for deletion in batch.deletions where failed[deletion.id] == nil {
            if let device = deletion.device, let problem = DeviceName.problem(with: device) {
                failed[deletion.id] = SyncError(.invalidArguments, "the deletion of \(deletion.id) names a device that \(problem)")
            }
        }
        return failed
    }

    /// Applies `batch` at `now`; `failed` holds the item errors found beforehand. Returns
    /// each item's result and whether anything changed.
    mutating func modify(_ batch: RecordBatch, failed: [RecordID: SyncError], now: Timestamp) throws(SyncError) -> (result: ModifyResult, changed: Bool) {
        guard var zone = zones.removeValue(forKey: batch.zone.name) else { throw SyncError.zoneNotFound(batch.zone) }
        defer { zones[batch.zone.name] = zone }  // taken out while changed, so that it is not copied
        let senderIsCurrent = batch.knownToken.map { (try? MemoryBackendChangeToken($0)) == zone.latestToken } ?? false
        var result = ModifyResult(failed: failed)
        var saves: [Record] = []
        var deletions: [RecordDeletion] = []
        var fine: [RecordID] = []
        for record in batch.saves where result.failed[record.id] == nil {
            let existing = zone.records[record.id.recordName]?.record
            if let existing, existing.changeTag != record.changeTag {
                result.failed[record.id] = .serverRecordChanged(existing)
            } else if existing == nil, record.changeTag != nil {
                result.failed[record.id] = SyncError(.unknownItem, "\(record.id) at \(record.path) was deleted on the server; save it without a change tag to bring it back")
            } else if let missing = firstMissingChunk(of: record) {
                result.failed[record.id] = SyncError(.chunkNotFound, "\(record.path): chunk \(missing.digest.shortHex) of its asset is not stored; upload the chunks first", digest: missing.digest)
            } else {
                saves.append(record)
                fine.append(record.id)
            }
        }
        for deletion in batch.deletions where result.failed[deletion.id] == nil {
            let existing = zone.records[deletion.id.recordName]?.record
            if let existing, let base = deletion.baseTag, base != existing.changeTag {
                result.failed[deletion.id] = .serverRecordChanged(existing)
                continue
            }
            if existing != nil { deletions.append(deletion) } else { result.deleted.insert(deletion.id) }  // already gone: idempotent
            fine.append(deletion.id)
        }
        if batch.atomic, !result.failed.isEmpty {
            let failedIDs = result.failed.keys.map(\.description).sorted().joined(separator: ", ")
            for id in fine {
                result.failed[id] = SyncError(.batchRequestFailed, "\(id) was not saved: the atomic batch failed because of \(failedIDs); fix or drop those items and resend")
            }
            result.deleted = []
            return (result, false)
        }
        for var record in saves {
            let name = record.id.recordName
            let seq = nextSeq()
            record.changeTag = ChangeTag(String(seq, radix: 36))
            if let existing = zone.records[name] {
                zone.keepReplaced(existing.record, at: now)
            } else if let deleted = zone.deleted.removeValue(forKey: name) {
                // Saved again after its deletion: it lives, and its deleted version is what it replaced.
                zone.keepReplaced(deleted.record, at: now)
            }
            zone.records[name] = MemoryZone.StoredRecord(record: record, seq: seq)
            zone.tombstones[name] = nil
            zone.noteChange(name, at: seq)
            result.saved[record.id] = record
        }
        for deletion in deletions {
            let name = deletion.id.recordName
            let seq = nextSeq()
            let existing = zone.records.removeValue(forKey: name)!
            zone.tombstones[name] = MemoryZone.Tombstone(seq: seq, deletedAt: now)
            zone.deleted[name] = DeletedRecord(record: existing.record, deletedAt: now, deletedBy: deletion.device ?? "")
            zone.noteChange(name, at: seq)
            result.deleted.insert(deletion.id)
        }
        if senderIsCurrent { result.token = zone.latestToken.token }
        return (result, !saves.isEmpty || !deletions.isEmpty)
    }
}
