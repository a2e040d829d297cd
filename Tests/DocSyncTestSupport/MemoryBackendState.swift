import DocSyncCore
import DocSyncStorage
import Foundation

/// Everything one `MemoryBackend` stores, as plain values: read and changed only under the
/// backend's lock, so that every call sees and leaves a consistent store. It is the store
/// algorithm's rows (`StoreRows`): the algorithm decides, this keeps.
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
}

extension MemoryBackendState: StoreRows {
    var tokenAccount: Int64? { nil }

    func allZones() -> [(name: String, movedTo: String?)] { zones.map { ($0.key, $0.value.movedTo) } }

    func zoneState(of zone: String) -> ZoneState? {
        zones[zone].map { ZoneState(incarnation: $0.incarnation, lastSeq: $0.lastSeq, compactedThrough: $0.compactedThrough, movedTo: $0.movedTo) }
    }

    func liveVersions(_ names: [String], in zone: String) -> [String: StoredVersion] {
        guard let records = zones[zone]?.records else { return [:] }
        var found: [String: StoredVersion] = [:]
        for name in names { if let version = records[name] { found[name] = version } }
        return found
    }

    func deletedEntries(_ names: [String]?, in zone: String, since: Timestamp?) -> [StoredDeletion] {
        guard let deleted = zones[zone]?.deleted else { return [] }
        let entries = names.map { $0.compactMap { deleted[$0] } } ?? Array(deleted.values)
        guard let since else { return entries }
        return entries.filter { $0.deletedAt >= since }
    }

    func keptBodies(in zone: String) -> [Data] {
        guard let zone = zones[zone] else { return [] }
        return zone.records.values.map(\.body) + zone.deleted.values.map(\.version.body) + zone.replaced.values.flatMap { $0.map(\.version.body) }
    }

    func storedChunks(among digests: [SHA256Digest]) -> Set<SHA256Digest> {
        Set(digests.filter { chunks[$0] != nil })
    }

    func changes(in zone: String, after: Int64, limit: Int) -> [ChangeRow] {
        zones[zone]?.changes(after: after, limit: limit) ?? []
    }

    mutating func reserveSequence(_ count: Int) -> Int64 {
        defer { sequence += Int64(count) }
        return sequence + 1
    }

    /// A name no earlier incarnation of any zone of this store had.
    mutating func newIncarnation() -> String {
        let value = String(incarnations.next(), radix: 16)
        return String(repeating: "0", count: 16 - value.count) + value
    }

    mutating func apply(_ writes: StoreWrites) {
        if writes.deleteZone {
            zones[writes.zone] = nil
            return
        }
        if let created = writes.createZone {
            zones[writes.zone] = MemoryZone(id: ZoneID(writes.zone), incarnation: created.incarnation, createdAt: created.seq)
        }
        // Taken out while changed, so that its storage is not copied.
        guard var zone = zones.removeValue(forKey: writes.zone) else { return }
        defer { zones[writes.zone] = zone }
        if let target = writes.moveTo { zone.becomeRedirect(to: target) }
        for (name, version) in writes.replaced {
            zone.replaced[name, default: []].append(MemoryZone.ReplacedVersion(version: version, replacedAt: writes.now))
        }
        for name in writes.leaveRecentlyDeleted { zone.deleted[name] = nil }
        for name in writes.purged {
            zone.deleted[name] = nil
            zone.replaced[name] = nil
        }
        for save in writes.saves {
            zone.records[save.name] = StoredVersion(changeTag: save.changeTag, seq: save.seq, body: save.body)
            zone.tombstones[save.name] = nil
            zone.noteChange(save.name, at: save.seq)
        }
        for deletion in writes.deletions {
            zone.records[deletion.name] = nil
            zone.tombstones[deletion.name] = MemoryZone.Tombstone(seq: deletion.seq, deletedAt: writes.now)
            if let kept = deletion.kept {
                zone.deleted[deletion.name] = StoredDeletion(name: deletion.name, version: kept, deletedAt: writes.now, deletedBy: deletion.device)
            }
            zone.noteChange(deletion.name, at: deletion.seq)
        }
        if let lastSeq = writes.lastSeq { zone.lastSeq = max(zone.lastSeq, lastSeq) }
    }
}

extension MemoryBackendState {
    /// The zone, to read, or `zoneNotFound`. (To change a zone, take it out of `zones` and
    /// put it back, so that its storage is not copied.)
    func requireZone(_ id: ZoneID) throws(SyncError) -> MemoryZone {
        guard let zone = zones[id.name] else { throw SyncError.zoneNotFound(id) }
        return zone
    }
}

/// One stored chunk: its bytes (damaged only by `MemoryBackend.corruptChunk`) and when it
/// was stored or last stored again, for the collection's grace period.
struct MemoryChunk {
    var bytes: Data
    var storedAt: Timestamp
    /// A sealed chunk's body digest, what `bytes` must hash to; `nil` for a plain chunk.
    var bodyDigest: SHA256Digest? = nil

    /// Whether `bytes` still hash to what was checked when the chunk was stored as `digest`.
    func matches(_ digest: SHA256Digest) -> Bool {
        SHA256Digest(hashing: bytes) == (bodyDigest ?? digest)
    }
}

/// One zone of a `MemoryBackend`: its records, tombstones and change history, and its
/// Recently Deleted and replaced versions.
struct MemoryZone {
    /// A deletion still reported by `fetchChanges`, until compacted.
    struct Tombstone {
        var seq: Int64
        var deletedAt: Timestamp
    }

    /// A version a save replaced, kept for the retention with its chunks.
    struct ReplacedVersion {
        var version: StoredVersion
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
    /// Live records as last saved, by record name.
    var records: [String: StoredVersion] = [:]
    var tombstones: [String: Tombstone] = [:]
    /// Every change in sequence order, stale ones included until `noteChange` drops them.
    private(set) var history: [Change] = []
    /// Recently Deleted: each deleted record's last version, by record name.
    var deleted: [String: StoredDeletion] = [:]
    /// Versions saves replaced, by record name, oldest first.
    var replaced: [String: [ReplacedVersion]] = [:]
    /// The zone this one was moved into (it holds nothing then: a redirect), or `nil`.
    private(set) var movedTo: String?

    init(id: ZoneID, incarnation: String, createdAt seq: Int64) {
        self.id = id
        self.incarnation = incarnation
        lastSeq = seq
    }

    /// Empties the zone of records, tombstones, history, Recently Deleted and replaced
    /// versions, and makes it a redirect to `target`.
    mutating func becomeRedirect(to target: String) {
        records = [:]
        tombstones = [:]
        history = []
        deleted = [:]
        replaced = [:]
        movedTo = target
    }

    /// Records that `recordName` changed at `seq` (a save or a deletion, already applied to
    /// `records` or `tombstones`).
    mutating func noteChange(_ recordName: String, at seq: Int64) {
        history.append(Change(seq: seq, recordName: recordName))
        if history.count > 2 * (records.count + tombstones.count) + 64 { history = history.filter(isCurrent) }
    }

    private func isCurrent(_ change: Change) -> Bool {
        records[change.recordName]?.seq == change.seq || tombstones[change.recordName]?.seq == change.seq
    }

    /// At most `limit` current changes after the position `after`, oldest first.
    func changes(after: Int64, limit: Int) -> [ChangeRow] {
        var low = 0, high = history.count
        while low < high {
            let middle = (low + high) / 2
            if history[middle].seq <= after { low = middle + 1 } else { high = middle }
        }
        var found: [ChangeRow] = []
        for change in history[low...] where isCurrent(change) {
            if found.count == limit { break }
            let body = records[change.recordName].flatMap { $0.seq == change.seq ? $0.body : nil }
            found.append(ChangeRow(name: change.recordName, seq: change.seq, body: body))
        }
        return found
    }
}
