import DocSyncCore
import DocSyncStorage
import Foundation

/// Rows as plain tables for table cases of the store algorithm: what a case stores before,
/// and every write the algorithm makes (not applied: a case checks the writes themselves).
struct TableRows: StoreRows {
    var tokenAccount: Int64?
    var zones: [String: ZoneState] = ["Documents": ZoneState(incarnation: "inc", lastSeq: 50, compactedThrough: 0)]
    var live: [String: StoredVersion] = [:]
    var deleted: [String: StoredDeletion] = [:]
    var chunks = Set<SHA256Digest>()
    var changeRows: [ChangeRow] = []
    var nextSeq: Int64 = 100
    var written: [StoreWrites] = []

    func allZones() -> [(name: String, movedTo: String?)] { zones.map { ($0.key, $0.value.movedTo) } }
    func zoneState(of zone: String) -> ZoneState? { zones[zone] }
    func keptBodies(in zone: String) -> [Data] { live.values.map(\.body) + deleted.values.map(\.version.body) }

    func liveVersions(_ names: [String], in zone: String) -> [String: StoredVersion] {
        var found: [String: StoredVersion] = [:]
        for name in names { found[name] = live[name] }
        return found
    }

    func deletedEntries(_ names: [String]?, in zone: String, since: Timestamp?) -> [StoredDeletion] {
        (names.map { $0.compactMap { deleted[$0] } } ?? Array(deleted.values)).filter { $0.deletedAt >= since ?? Timestamp(nanosecondsSince1970: .min) }
    }

    func storedChunks(among digests: [SHA256Digest]) -> Set<SHA256Digest> { chunks.intersection(digests) }

    func changes(in zone: String, after: Int64, limit: Int) -> [ChangeRow] {
        Array(changeRows.filter { $0.seq > after }.sorted { $0.seq < $1.seq }.prefix(limit))
    }

    mutating func reserveSequence(_ count: Int) -> Int64 {
        defer { nextSeq += Int64(count) }
        return nextSeq
    }

    func newIncarnation() -> String { "new-incarnation" }

    mutating func apply(_ writes: StoreWrites) { written.append(writes) }
}
