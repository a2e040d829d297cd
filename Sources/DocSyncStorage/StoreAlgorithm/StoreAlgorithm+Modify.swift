import DocSyncCore
import Foundation

extension StoreAlgorithm {
    /// What a batch cannot do whatever is stored, checked before any transaction: more
    /// items than `RecordBatch.maximumItems` throws `limitExceeded` (split it and resend);
    /// the items failing on their own (`RecordBatch.itemsFailingValidation`) are returned.
    public static func admit(_ batch: RecordBatch) throws(SyncError) -> [RecordID: SyncError] {
        guard batch.itemCount <= RecordBatch.maximumItems else {
            throw SyncError(.limitExceeded, "batch of \(batch.itemCount) items exceeds \(RecordBatch.maximumItems); split it and resend")
        }
        return batch.itemsFailingValidation
    }

    /// Saves and deletes the records of `batch` (`StorageBackend.modifyRecords`), each item
    /// decided against the store as it was before the batch; `failedBefore` holds what
    /// `admit` found.
    /// - A save whose base tag is not the stored one fails with `serverRecordChanged` (with
    ///   the stored record); a tagged save of a record not stored fails with `unknownItem`;
    ///   a save naming a chunk (or top-level manifest node) not stored fails with
    ///   `chunkNotFound`.
    /// - A save that replaces a version keeps it as replaced; a save of a record in Recently
    ///   Deleted takes it out, and its deleted version is what it replaced.
    /// - A deletion of what is not stored succeeds (deleting is idempotent); one with a
    ///   stale base tag fails with `serverRecordChanged`; otherwise the record goes, a
    ///   tombstone marks it and its last version goes to Recently Deleted with the device.
    /// - A plain record in an encrypted folder's zone, or in any folder zone of an encrypted
    ///   account, fails with `invalidArguments` (`plaintextRefused`).
    /// - An atomic batch with any failure changes nothing, and its other items fail with
    ///   `batchRequestFailed`.
    /// - Values (in a key-value store's zone, SPEC §12) are saved and deleted
    ///   unconditionally — change tags are ignored, the last to arrive wins — and a deleted
    ///   or replaced Value is not kept. A save that would take the store past 1,024 keys or
    ///   1,000,000 bytes (`KeyValueLimits`; the batch's deletions counted first) fails with
    ///   `quotaExceeded`, and the device shows the server's value again.
    ///
    /// Each change takes the next sequence value, saves first, in the batch's order; a save's
    /// change tag is its sequence value. A sender whose known token was current gets the
    /// token past its own batch. Throws `zoneNotFound`.
    public static func modify<Rows: StoreRows>(
        _ batch: RecordBatch, failedBefore: [RecordID: SyncError], now: Timestamp, in rows: inout Rows
    ) throws -> StoreOutcome<ModifyResult> {
        var seq = try rows.reserveSequence(max(1, batch.itemCount))
        let zone = batch.zone
        let state = try requireZone(zone, rows)
        let senderIsCurrent = isCurrent(batch.knownToken, zone, state, account: rows.tokenAccount)
        var result = ModifyResult(failed: failedBefore)
        result.failed.merge(try plaintextRefused(batch.saves.filter { failedBefore[$0.id] == nil }, in: zone, rows)) { first, _ in first }
        let saves = batch.saves.filter { result.failed[$0.id] == nil }
        let deletions = batch.deletions.filter { failedBefore[$0.id] == nil }
        let existing = try rows.liveVersions(saves.map(\.id.recordName) + deletions.map(\.id.recordName), in: zone.name)
        let unstored = saves.map(\.id.recordName).filter { existing[$0] == nil }
        let isKeyValueStore = zone.isKeyValueStore
        var recentlyDeleted: [String: StoredVersion] = [:]
        if !unstored.isEmpty, !isKeyValueStore {  // a store's Values never go to Recently Deleted
            for entry in try rows.deletedEntries(unstored, in: zone.name, since: nil) { recentlyDeleted[entry.name] = entry.version }
        }
        let digests = Array(Set(saves.flatMap { $0.asset?.entries.map(\.digest) ?? [] }))
        let stored = digests.isEmpty ? [] : try rows.storedChunks(among: digests)

        var valueSizes = isKeyValueStore ? try keyValueSizes(of: zone, rows) : [:]
        if isKeyValueStore {
            for deletion in deletions { if let key = KeyValueKey(recordName: deletion.id.recordName) { valueSizes[key] = nil } }
        }

        var writes = StoreWrites(zone: zone.name, now: now)
        for var record in saves {
            let name = record.id.recordName
            let current = existing[name]
            // A store's Value is saved unconditionally, within the store's limits, and replaces
            // nothing kept; any other record by its change tag, its chunks stored.
            let value = isKeyValueStore ? record.keyValueSlot : nil
            if let key = value {
                if let problem = KeyValueLimits.problem(writing: [(key, Int(record.size))], over: valueSizes) {
                    result.failed[record.id] = SyncError(.quotaExceeded, "\(zone): \(problem)")
                    continue
                }
                valueSizes[key] = Int(record.size)
            } else {
                if let current, current.changeTag != record.changeTag?.rawValue {
                    result.failed[record.id] = .serverRecordChanged(try current.record())
                    continue
                }
                if current == nil, record.changeTag != nil {
                    result.failed[record.id] = SyncError(
                        .unknownItem, "\(record.id) at \(record.path) was deleted on the server; save it without a change tag to bring it back")
                    continue
                }
                if let missing = record.asset?.entries.first(where: { !stored.contains($0.digest) }) {
                    result.failed[record.id] = SyncError(
                        .chunkNotFound, "\(record.path): chunk \(missing.digest.shortHex) of its asset is not stored; upload the chunks first",
                        digest: missing.digest)
                    continue
                }
            }
            record.changeTag = ChangeTag(String(seq, radix: 36))
            writes.saves.append(StoreWrites.Save(name: name, changeTag: record.changeTag!.rawValue, seq: seq, body: CompactCoding.encode(record)))
            if value == nil, let current {
                writes.replaced.append((name, current))
            } else if value == nil, let deleted = recentlyDeleted[name] {
                // Saved again after its deletion: it lives, and its deleted version is what it replaced.
                writes.leaveRecentlyDeleted.append(name)
                writes.replaced.append((name, deleted))
            }
            result.saved[record.id] = record
            writes.lastSeq = seq
            seq += 1
        }
        for deletion in deletions {
            guard let current = existing[deletion.id.recordName] else {
                result.deleted.insert(deletion.id)  // already gone: deleting is idempotent
                continue
            }
            if !isKeyValueStore, let base = deletion.baseTag, base.rawValue != current.changeTag {
                result.failed[deletion.id] = .serverRecordChanged(try current.record())
                continue
            }
            writes.deletions.append(StoreWrites.Deletion(
                name: deletion.id.recordName, seq: seq, kept: isKeyValueStore ? nil : current, device: deletion.device ?? ""))
            result.deleted.insert(deletion.id)
            writes.lastSeq = seq
            seq += 1
        }
        if batch.atomic, !result.failed.isEmpty {
            let failedIDs = result.failed.keys.map(\.description).sorted().joined(separator: ", ")
            for id in Array(result.saved.keys) + Array(result.deleted) {
                result.failed[id] = SyncError(.batchRequestFailed, "\(id) was not saved: the atomic batch failed because of \(failedIDs)")
            }
            result.saved = [:]
            result.deleted = []
            return .unchanged(result)
        }
        if senderIsCurrent { result.token = token(zone, state, seq: writes.lastSeq ?? state.lastSeq, account: rows.tokenAccount) }
        guard writes.lastSeq != nil else { return .unchanged(result) }
        try rows.apply(writes)
        return StoreOutcome(result, wrote: true, announces: true)
    }

    /// The bytes of each Value a key-value store's zone holds, by key.
    static func keyValueSizes(of zone: ZoneID, _ rows: some StoreRows) throws -> [KeyValueKey: Int] {
        var sizes: [KeyValueKey: Int] = [:]
        // A store holds at most 1,024 live Values; its tombstones are read too, and skipped.
        for change in try rows.changes(in: zone.name, after: 0, limit: Int(Int32.max)) {
            guard let body = change.body else { continue }
            let record = try StoredVersion.decode(body)
            if let key = record.keyValueSlot { sizes[key] = Int(record.size) }
        }
        return sizes
    }
}
