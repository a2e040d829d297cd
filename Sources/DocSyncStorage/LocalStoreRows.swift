import DocSyncCore
import Foundation
import GRDB

/// The embedded store's rows under the store algorithm (`StoreRows`): the tables of
/// `records.sqlite`, read and written on one connection inside the transaction the caller
/// holds (`LocalBackend.transact`: IMMEDIATE, so a read-then-write never fails to upgrade
/// under another process's commit). Sequence values come from the database-wide
/// `sequence` row; a transaction rolled back gives its values back.
///
/// Time columns: `tombstone.deletedAt` in seconds, `deletedRecord.deletedAt` and
/// `replacedVersion.replacedAt` in nanoseconds since 1970 (what compaction and the
/// retention query).
struct LocalStoreRows: StoreRows {
    let db: Database

    var tokenAccount: Int64? { nil }

    func allZones() throws -> [(name: String, movedTo: String?)] {
        try Row.fetchAll(db, sql: "SELECT name, movedTo FROM zone").map { ($0[0], $0[1]) }
    }

    func zoneState(of zone: String) throws -> ZoneState? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT incarnation, lastSeq, compactedThroughSeq, movedTo FROM zone WHERE name = ?"),
                         arguments: [zone])
            .map { ZoneState(incarnation: $0[0], lastSeq: $0[1], compactedThrough: $0[2], movedTo: $0[3]) }
    }

    func liveVersions(_ names: [String], in zone: String) throws -> [String: StoredVersion] {
        let statement = try db.cachedStatement(sql: "SELECT changeTag, seq, body FROM record WHERE zone = ? AND recordName = ?")
        var found: [String: StoredVersion] = [:]
        for name in names {
            if let row = try Row.fetchOne(statement, arguments: [zone, name]) {
                found[name] = StoredVersion(changeTag: row[0], seq: row[1], body: row[2])
            }
        }
        return found
    }

    func deletedEntries(_ names: [String]?, in zone: String, since: Timestamp?) throws -> [StoredDeletion] {
        let after = since?.nanosecondsSince1970 ?? Int64.min
        func entry(_ row: Row) -> StoredDeletion {
            StoredDeletion(name: row[0], version: StoredVersion(changeTag: nil, seq: row[1], body: row[2]),
                         deletedAt: Timestamp(nanosecondsSince1970: row[3]), deletedBy: row[4])
        }
        guard let names else {
            return try Row.fetchAll(db, sql: """
                SELECT recordName, seq, body, deletedAt, deletedBy FROM deletedRecord WHERE zone = ? AND deletedAt >= ?
                """, arguments: [zone, after]).map(entry)
        }
        let statement = try db.cachedStatement(sql: """
            SELECT recordName, seq, body, deletedAt, deletedBy FROM deletedRecord WHERE zone = ? AND recordName = ? AND deletedAt >= ?
            """)
        return try names.compactMap { name in try Row.fetchOne(statement, arguments: [zone, name, after]).map(entry) }
    }

    func keptBodies(in zone: String) throws -> [Data] {
        try Data.fetchAll(db, sql: """
            SELECT body FROM record WHERE zone = ?
            UNION ALL SELECT body FROM deletedRecord WHERE zone = ?
            UNION ALL SELECT body FROM replacedVersion WHERE zone = ?
            """, arguments: [zone, zone, zone])
    }

    func storedChunks(among digests: [SHA256Digest]) throws -> Set<SHA256Digest> {
        let present = try db.directStatement(sql: PackStore.presenceQuery)
        var stored = Set<SHA256Digest>()
        for digest in digests {
            present.bind(1, digest.indexKey)
            present.bind(2, digest)
            if try present.yieldsRow() { stored.insert(digest) }
        }
        return stored
    }

    func changes(in zone: String, after: Int64, limit: Int) throws -> [ChangeRow] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT recordName, seq, body FROM record WHERE zone = ? AND seq > ?
            UNION ALL
            SELECT recordName, seq, NULL FROM tombstone WHERE zone = ? AND seq > ?
            ORDER BY seq LIMIT ?
            """), arguments: [zone, after, zone, after, limit]).map { ChangeRow(name: $0[0], seq: $0[1], body: $0[2]) }
    }

    func reserveSequence(_ count: Int) throws -> Int64 {
        let last = try Int64.fetchOne(db.cachedStatement(sql: "UPDATE sequence SET value = value + ? WHERE id = 1 RETURNING value"),
                                      arguments: [count])!
        return last - Int64(count) + 1
    }

    func newIncarnation() -> String { RecordID.newName() }

    func apply(_ writes: StoreWrites) throws {
        let zone = writes.zone
        if writes.deleteZone {
            // Records, tombstones and kept versions go with it (ON DELETE CASCADE).
            try db.execute(sql: "DELETE FROM zone WHERE name = ?", arguments: [zone])
            return
        }
        if let target = writes.moveTo {
            for table in ["record", "tombstone", "deletedRecord", "replacedVersion"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE zone = ?", arguments: [zone])
            }
            try db.execute(sql: "UPDATE zone SET movedTo = ? WHERE name = ?", arguments: [target, zone])
        }
        if let created = writes.createZone {
            try db.execute(sql: "INSERT INTO zone (name, incarnation, lastSeq) VALUES (?, ?, ?)", arguments: [zone, created.incarnation, created.seq])
        }
        let now = writes.now.nanosecondsSince1970
        for (name, version) in writes.replaced {
            try db.cachedStatement(sql: "INSERT INTO replacedVersion (zone, recordName, seq, replacedAt, body) VALUES (?, ?, ?, ?, ?)")
                .execute(arguments: [zone, name, version.seq, now, version.body])
        }
        for name in writes.leaveRecentlyDeleted {
            try db.cachedStatement(sql: "DELETE FROM deletedRecord WHERE zone = ? AND recordName = ?").execute(arguments: [zone, name])
        }
        for name in writes.purged {
            try db.cachedStatement(sql: "DELETE FROM deletedRecord WHERE zone = ? AND recordName = ?").execute(arguments: [zone, name])
            try db.cachedStatement(sql: "DELETE FROM replacedVersion WHERE zone = ? AND recordName = ?").execute(arguments: [zone, name])
        }
        for save in writes.saves {
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO record (zone, recordName, changeTag, seq, body) VALUES (?, ?, ?, ?, ?)")
                .execute(arguments: [zone, save.name, save.changeTag, save.seq, save.body])
            try db.cachedStatement(sql: "DELETE FROM tombstone WHERE zone = ? AND recordName = ?").execute(arguments: [zone, save.name])
        }
        for deletion in writes.deletions {
            try db.cachedStatement(sql: "DELETE FROM record WHERE zone = ? AND recordName = ?").execute(arguments: [zone, deletion.name])
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO tombstone (zone, recordName, seq, deletedAt) VALUES (?, ?, ?, ?)")
                .execute(arguments: [zone, deletion.name, deletion.seq, writes.now.date.timeIntervalSince1970])
            guard let kept = deletion.kept else { continue }
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO deletedRecord (zone, recordName, seq, deletedAt, deletedBy, body) VALUES (?, ?, ?, ?, ?, ?)")
                .execute(arguments: [zone, deletion.name, kept.seq, now, deletion.device, kept.body])
        }
        if let lastSeq = writes.lastSeq {
            try db.cachedStatement(sql: "UPDATE zone SET lastSeq = MAX(lastSeq, ?) WHERE name = ?").execute(arguments: [lastSeq, zone])
        }
    }
}
