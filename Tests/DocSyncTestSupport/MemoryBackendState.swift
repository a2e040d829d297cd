import DocSyncCore
import DocSyncStorage
import Foundation

/// Everything one `MemoryBackend` stores, as plain values: read and changed only under the
/// backend's lock, so that every call sees and leaves a consistent store.
struct MemoryBackendState {
    /// The store-wide sequence: every change tag, zone creation and token position is a
    /// value of it, so none is reused within the store, even across a zone's re-creation.
    var sequence: Int64 = 0
    var zones: [String: MemoryZone] = [:]
    var chunks: [SHA256Digest: MemoryChunk] = [:]
    /// The bytes of every chunk in `chunks`, kept as chunks come and go.
    var chunkBytes: Int64 = 0
    /// The most bytes `chunks` may hold (`nil`: no limit).
    var chunkByteLimit: Int64?
    /// Where incarnations come from: seeded, so every run names them alike.
    var incarnations: SplitMix64
    /// When tombstones were last compacted on the store's own schedule (set by `startSchedules`).
    var lastCompaction = Timestamp(nanosecondsSince1970: 0)
    /// When the store's own collection is next due (`nil`: no schedule).
    var nextCollection: Timestamp?

    mutating func nextSeq() -> Int64 {
        sequence += 1
        return sequence
    }

    /// A name no earlier incarnation of any zone of this store had.
    mutating func newIncarnation() -> String {
        let value = String(incarnations.next(), radix: 16)
        return String(repeating: "0", count: 16 - value.count) + value
    }

    /// The zone, to read, or `zoneNotFound`. (To change a zone, take it out of `zones` and
    /// put it back, so that its storage is not copied.)
    func requireZone(_ id: ZoneID) throws(SyncError) -> MemoryZone {
        guard let zone = zones[id.name] else { throw SyncError.zoneNotFound(id) }
        return zone
    }

    /// The first of `record`'s chunks (or top-level manifest nodes) that is not stored.
    func firstMissingChunk(of record: Record) -> ChunkRef? {
        record.asset?.entries.first { chunks[$0.digest] == nil }
    }
}

/// One stored chunk: its bytes (damaged only by `MemoryBackend.corruptChunk`) and when it
/// was stored or last stored again, for the collection's grace period.
struct MemoryChunk {
    var bytes: Data
    var storedAt: Timestamp
}

/// One zone of a `MemoryBackend`: its records, tombstones and change history, and its
/// Recently Deleted and replaced versions.
struct MemoryZone {
    /// A live record as last saved (its change tag set) and the sequence value of that save.
    struct StoredRecord {
        var record: Record
        var seq: Int64
    }

    /// A deletion still reported by `fetchChanges`, until compacted.
    struct Tombstone {
        var seq: Int64
        var deletedAt: Timestamp
    }

    /// A version a save replaced, kept for the retention with its chunks.
    struct ReplacedVersion {
        var record: Record
        var replacedAt: Timestamp
    }

    /// A change in sequence order: current while the record (or its tombstone) still
    /// carries `seq`; a later change of the same record leaves this one stale.
    struct Change {
        var seq: Int64
        var recordName: String
    }

    let id: ZoneID
    /// New on every creation; tokens carry it.
    let incarnation: String
    /// The sequence value of the zone's latest change (its creation at first).
    var lastSeq: Int64
    /// Tokens below this position predate compacted tombstones: expired.
    var compactedThrough: Int64 = 0
    var records: [String: StoredRecord] = [:]
    var tombstones: [String: Tombstone] = [:]
    /// Every change in sequence order, stale ones included until `noteChange` drops them.
    private(set) var history: [Change] = []
    /// Recently Deleted: each deleted record's last version, by record name.
    var deleted: [String: DeletedRecord] = [:]
    /// Versions saves replaced, by record name, oldest first.
    var replaced: [String: [ReplacedVersion]] = [:]

    init(id: ZoneID, incarnation: String, createdAt seq: Int64) {
        self.id = id
        self.incarnation = incarnation
        lastSeq = seq
    }

    /// The token of a client that has every change of the zone.
    var latestToken: MemoryBackendChangeToken {
        MemoryBackendChangeToken(zone: id.name, incarnation: incarnation, seq: lastSeq)
    }

    /// Records that `recordName` changed at `seq` (a save or a deletion, already applied to
    /// `records` or `tombstones`), the latest change of the zone.
    mutating func noteChange(_ recordName: String, at seq: Int64) {
        history.append(Change(seq: seq, recordName: recordName))
        lastSeq = seq
        if history.count > 2 * (records.count + tombstones.count) + 64 { history = history.filter(isCurrent) }
    }

    private func isCurrent(_ change: Change) -> Bool {
        records[change.recordName]?.seq == change.seq || tombstones[change.recordName]?.seq == change.seq
    }

    /// One page of the changes after the position `after`: at most `pageSize` items, oldest
    /// first, each record once in its latest state; the position reached, and whether more follow.
    func changes(after: Int64, pageSize: Int) -> (changed: [Record], deleted: [RecordID], position: Int64, moreComing: Bool) {
        var low = 0, high = history.count
        while low < high {
            let middle = (low + high) / 2
            if history[middle].seq <= after { low = middle + 1 } else { high = middle }
        }
        var changed: [Record] = []
        var deleted: [RecordID] = []
        var position = after
        for change in history[low...] where isCurrent(change) {
            if changed.count + deleted.count == pageSize { return (changed, deleted, position, true) }
            if let stored = records[change.recordName], stored.seq == change.seq {
                changed.append(stored.record)
            } else {
                deleted.append(RecordID(zone: id, recordName: change.recordName))
            }
            position = change.seq
        }
        return (changed, deleted, max(position, lastSeq), false)
    }

    /// Keeps `version` as replaced at `time`, for the retention.
    mutating func keepReplaced(_ version: Record, at time: Timestamp) {
        replaced[version.id.recordName, default: []].append(ReplacedVersion(record: version, replacedAt: time))
    }
}

extension Timestamp {
    /// This time plus `seconds`, saturating as `subtracting(seconds:)` does.
    func adding(seconds: TimeInterval) -> Timestamp { subtracting(seconds: -seconds) }

    /// This time less `seconds` (saturating: an age too large for the clock gives the
    /// earliest time, a negative one a later time).
    func subtracting(seconds: TimeInterval) -> Timestamp {
        let nanoseconds = seconds * 1e9
        guard nanoseconds.magnitude < 9e18 else { return Timestamp(nanosecondsSince1970: nanoseconds > 0 ? .min : .max) }
        let (value, overflow) = nanosecondsSince1970.subtractingReportingOverflow(Int64(nanoseconds.rounded()))
        return overflow ? Timestamp(nanosecondsSince1970: nanoseconds > 0 ? .min : .max) : Timestamp(nanosecondsSince1970: value)
    }
}
