import DocSyncCore
import DocSyncStorage
import Foundation

/// One stored version of a record: its tag (none for a version kept in Recently Deleted),
/// its sequence value and its encoded body (`CompactCoding`).
struct StoredVersion: Sendable, Hashable {
    var changeTag: String?
    var seq: Int64
    var body: Data
}

/// What a `modifyRecords` batch does to the store, decided from what the store holds (the
/// records it names, their versions in Recently Deleted, which of their chunks are stored)
/// without touching it: the per-item result and the rows to write. The same algorithm as
/// the embedded store's (`LocalBackend.apply`):
/// - a save whose base tag is not the stored one fails with `serverRecordChanged` (with the
///   stored record); a tagged save of a record that is not stored fails with `unknownItem`;
///   a save naming a chunk that is not stored fails with `chunkNotFound`;
/// - a save that replaces a version keeps it (a replaced version); a save of a record in
///   Recently Deleted takes it out, and the deleted version is what it replaced;
/// - a deletion of what is not stored succeeds (idempotent); one with a stale base tag
///   fails with `serverRecordChanged`; otherwise the record goes, a tombstone marks it and
///   its last version is kept in Recently Deleted with the deleting device;
/// - an atomic batch with any failure changes nothing, and its other items fail with
///   `batchRequestFailed`.
///
/// Sequence values are handed out from `firstSeq` upwards in the order of the items, one
/// per item that changes something.
struct ModifyDecision: Sendable {
    struct Save: Sendable {
        var name: String
        var changeTag: String
        var seq: Int64
        var body: Data
    }

    struct Deletion: Sendable {
        var name: String
        var seq: Int64
        /// The version kept in Recently Deleted.
        var kept: StoredVersion
        var device: String
    }

    var result: ModifyResult
    var saves: [Save] = []
    var deletions: [Deletion] = []
    /// Versions replaced by saves, by record name, to keep.
    var replaced: [(name: String, version: StoredVersion)] = []
    /// Records saved again whose entries leave Recently Deleted.
    var takenFromRecentlyDeleted: [String] = []
    /// The sequence value of the last change, `nil` when nothing changes.
    var lastSeq: Int64?

    var changesSomething: Bool { lastSeq != nil }

    static func decide(
        _ batch: RecordBatch, failedBefore: [RecordID: SyncError], existing: [String: StoredVersion],
        recentlyDeleted: [String: StoredVersion], storedChunks: Set<SHA256Digest>, firstSeq: Int64
    ) throws(SyncError) -> ModifyDecision {
        var decision = ModifyDecision(result: ModifyResult(failed: failedBefore))
        var seq = firstSeq
        for var record in batch.saves where decision.result.failed[record.id] == nil {
            let name = record.id.recordName
            let stored = existing[name]
            if let stored, stored.changeTag != record.changeTag?.rawValue {
                decision.result.failed[record.id] = .serverRecordChanged(try decode(stored.body))
                continue
            }
            if stored == nil, record.changeTag != nil {
                decision.result.failed[record.id] = SyncError(
                    .unknownItem, "\(record.id) at \(record.path) was deleted on the server; save it without a change tag to bring it back")
                continue
            }
            if let missing = record.asset?.entries.first(where: { !storedChunks.contains($0.digest) }) {
                decision.result.failed[record.id] = SyncError(
                    .chunkNotFound, "\(record.path): chunk \(missing.digest.shortHex) of its asset is not stored; upload the chunks first",
                    digest: missing.digest)
                continue
            }
            record.changeTag = ChangeTag(String(seq, radix: 36))
            decision.saves.append(Save(name: name, changeTag: record.changeTag!.rawValue, seq: seq, body: CompactCoding.encode(record)))
            if let stored {
                decision.replaced.append((name, stored))
            } else if let deleted = recentlyDeleted[name] {
                decision.takenFromRecentlyDeleted.append(name)
                decision.replaced.append((name, deleted))
            }
            decision.result.saved[record.id] = record
            decision.lastSeq = seq
            seq += 1
        }
        for deletion in batch.deletions where decision.result.failed[deletion.id] == nil {
            guard let stored = existing[deletion.id.recordName] else {
                decision.result.deleted.insert(deletion.id)  // already gone: deleting is idempotent
                continue
            }
            if let base = deletion.baseTag, base.rawValue != stored.changeTag {
                decision.result.failed[deletion.id] = .serverRecordChanged(try decode(stored.body))
                continue
            }
            decision.deletions.append(Deletion(name: deletion.id.recordName, seq: seq, kept: stored, device: deletion.device ?? ""))
            decision.result.deleted.insert(deletion.id)
            decision.lastSeq = seq
            seq += 1
        }
        if batch.atomic, !decision.result.failed.isEmpty {
            var result = decision.result
            let failedIDs = result.failed.keys.map(\.description).sorted().joined(separator: ", ")
            for id in Array(result.saved.keys) + Array(result.deleted) {
                result.failed[id] = SyncError(.batchRequestFailed, "\(id) was not saved: the atomic batch failed because of \(failedIDs)")
            }
            result.saved = [:]
            result.deleted = []
            return ModifyDecision(result: result)
        }
        return decision
    }

    static func decode(_ body: Data) throws(SyncError) -> Record {
        do {
            return try CompactCoding.decodeRecord(body)
        } catch {
            throw SyncError(.internalError, "a stored record cannot be decoded: \(error)")
        }
    }
}
