import DocSyncCore
import Foundation
import GRDB

/// Reading a whole embedded store out, page by page, for `docsync-server migrate`
/// (`StoreExport`). Each page is read on its own snapshot; a migration runs while no server
/// writes the store.
extension LocalBackend {
    /// The store's sequence: the last value handed out as a change tag or position.
    public func exportSequence() async throws(SyncError) -> Int64 {
        try await read("export the sequence") { db in try Int64.fetchOne(db, sql: "SELECT value FROM sequence WHERE id = 1") ?? 0 }
    }

    public func exportZones() async throws(SyncError) -> [StoreExport.Zone] {
        try await read("export zones") { db in
            try Row.fetchAll(db, sql: "SELECT name, incarnation, lastSeq, compactedThroughSeq, movedTo FROM zone ORDER BY name").map {
                StoreExport.Zone(name: $0[0], incarnation: $0[1], lastSeq: $0[2], compactedThroughSeq: $0[3], movedTo: $0[4])
            }
        }
    }

    /// Live records in sequence order: `after` is the last `seq` of the previous page (0 first).
    public func exportRecords(after: Int64, limit: Int) async throws(SyncError) -> StoreExport.Page<StoreExport.RecordRow> {
        try await read("export records") { db in
            let rows = try Row.fetchAll(db, sql: "SELECT zone, recordName, changeTag, seq, body FROM record WHERE seq > ? ORDER BY seq LIMIT ?",
                                        arguments: [after, limit]).map {
                StoreExport.RecordRow(zone: $0[0], recordName: $0[1], changeTag: $0[2], seq: $0[3], body: $0[4])
            }
            return StoreExport.Page(rows: rows, next: rows.count == limit ? rows.last?.seq : nil)
        }
    }

    public func exportTombstones(after: Int64, limit: Int) async throws(SyncError) -> StoreExport.Page<StoreExport.Tombstone> {
        try await read("export tombstones") { db in
            let rows = try Row.fetchAll(db, sql: "SELECT zone, recordName, seq, deletedAt FROM tombstone WHERE seq > ? ORDER BY seq LIMIT ?",
                                        arguments: [after, limit]).map {
                StoreExport.Tombstone(zone: $0[0], recordName: $0[1], seq: $0[2], deletedAt: $0[3])
            }
            return StoreExport.Page(rows: rows, next: rows.count == limit ? rows.last?.seq : nil)
        }
    }

    /// Recently Deleted, by (seq, zone, recordName) order; `after` is a row count to skip.
    public func exportDeleted(after: Int64, limit: Int) async throws(SyncError) -> StoreExport.Page<StoreExport.DeletedRow> {
        try await read("export Recently Deleted") { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT zone, recordName, seq, deletedAt, deletedBy, body FROM deletedRecord ORDER BY seq, zone, recordName LIMIT ? OFFSET ?
                """, arguments: [limit, after]).map {
                StoreExport.DeletedRow(zone: $0[0], recordName: $0[1], seq: $0[2], deletedAt: $0[3], deletedBy: $0[4], body: $0[5])
            }
            return StoreExport.Page(rows: rows, next: rows.count == limit ? after + Int64(rows.count) : nil)
        }
    }

    public func exportReplaced(after: Int64, limit: Int) async throws(SyncError) -> StoreExport.Page<StoreExport.ReplacedRow> {
        try await read("export kept versions") { db in
            let rows = try Row.fetchAll(db, sql: "SELECT id, zone, recordName, seq, replacedAt, body FROM replacedVersion WHERE id > ? ORDER BY id LIMIT ?",
                                        arguments: [after, limit])
            let page = rows.map { StoreExport.ReplacedRow(zone: $0[1], recordName: $0[2], seq: $0[3], replacedAt: $0[4], body: $0[5]) }
            return StoreExport.Page(rows: page, next: rows.count == limit ? rows.last?[0] : nil)
        }
    }

    /// The digests of stored chunks, in the order they lie in packs: `after` is a row count to skip.
    public func exportChunkDigests(after: Int64, limit: Int) async throws(SyncError) -> StoreExport.Page<SHA256Digest> {
        try await read("export chunk digests") { db in
            let digests = try Data.fetchAll(db, sql: "SELECT digest FROM chunk ORDER BY pack, offset LIMIT ? OFFSET ?", arguments: [limit, after])
                .compactMap { SHA256Digest(bytes: $0) }
            return StoreExport.Page(rows: digests, next: digests.count == limit ? after + Int64(digests.count) : nil)
        }
    }
}
