import DocSyncCore
import DocSyncStorage
import Foundation
import GRDB

/// The shares of the one-machine server: one row per participant of each shared zone in
/// `users.sqlite`'s `share` table, never deleted (an ended entry says how it ended).
extension UserStore {
    public func shareEntries(of share: ShareName) async throws(SyncError) -> [ShareEntry] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM share WHERE owner = ? AND zone = ?", arguments: [share.owner, share.zone.name])
                .compactMap(Self.entry)
        }
    }

    public func shareEntries(participant: String) async throws(SyncError) -> [ShareEntry] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM share WHERE participant = ?", arguments: [participant]).compactMap(Self.entry)
        }
    }

    public func shareEntry(_ share: ShareName, participant: String) async throws(SyncError) -> ShareEntry? {
        try await read { db in try Self.entry(share, participant, db) }
    }

    public func replaceShareEntry(_ expected: ShareEntry?, with entry: ShareEntry) async throws(SyncError) -> Bool {
        try write("change the share \(entry.share)") { db in
            guard try Self.entry(entry.share, entry.participant, db) == expected else { return false }
            try db.execute(sql: """
                INSERT OR REPLACE INTO share (owner, zone, participant, permission, status, changed) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [entry.share.owner, entry.share.zone.name, entry.participant, entry.permission.rawValue,
                                 entry.status.rawValue, entry.changed.nanosecondsSince1970])
            return true
        }
    }

    private static func entry(_ share: ShareName, _ participant: String, _ db: Database) throws -> ShareEntry? {
        try Row.fetchOne(db, sql: "SELECT * FROM share WHERE owner = ? AND zone = ? AND participant = ?",
                         arguments: [share.owner, share.zone.name, participant]).flatMap(entry)
    }

    /// Every entry, sorted by share and participant: what `docsync-server migrate` copies.
    public func exportShares() async throws(SyncError) -> [ShareEntry] {
        try await read { db in try Row.fetchAll(db, sql: "SELECT * FROM share ORDER BY owner, zone, participant").compactMap(Self.entry) }
    }

    /// The entry of a row; `nil` for one this release cannot read (a status a newer one wrote).
    private static func entry(_ row: Row) -> ShareEntry? {
        guard let zone = try? ZoneID(validating: row["zone"]), let permission = SharePermission(rawValue: row["permission"]),
              let status = ShareStatus(rawValue: row["status"]) else { return nil }
        return ShareEntry(share: ShareName(owner: row["owner"], zone: zone), participant: row["participant"], permission: permission,
                          status: status, changed: Timestamp(nanosecondsSince1970: row["changed"]))
    }

    static let sharesMigration = """
        CREATE TABLE share (
            owner TEXT NOT NULL,                -- the account that owns the zone
            zone TEXT NOT NULL,                 -- the zone's name
            participant TEXT NOT NULL,          -- the account it is shared with
            permission TEXT NOT NULL,           -- readOnly | readWrite
            status TEXT NOT NULL,               -- invited | accepted | declined | removed | left | stopped
            changed INTEGER NOT NULL,           -- nanoseconds since 1970
            PRIMARY KEY (owner, zone, participant)
        ) WITHOUT ROWID;
        CREATE INDEX share_by_participant ON share(participant);
        """
}
