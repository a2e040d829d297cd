import DocSyncCore
import Foundation
import GRDB

/// One key-value store's local state on disk (`STATE_DIR/kv/ID.sqlite`, SQLite in WAL):
/// the server's values, the pending writes, the change token, whether the first fetch
/// happened, the account, and the last `keptChanges` announcements with their sequence
/// numbers (what `kv watch --since` replays).
///
/// `save` writes a new state and its announcements in one transaction, so a crash keeps
/// either the state before or the state after, never a write without its place in line.
final class KeyValueDatabase: Sendable {
    /// How many announcements are kept for `kv watch --since`.
    static let keptChanges = 1_000

    let store: KeyValueStoreID
    private let queue: DatabaseQueue

    init(store: KeyValueStoreID, url: URL) throws {
        self.store = store
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        queue = try DatabaseQueue(path: url.path, configuration: configuration)
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        try Self.migrator.migrate(queue)
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE meta (name TEXT PRIMARY KEY NOT NULL, value TEXT);
                CREATE TABLE serverValue (key TEXT PRIMARY KEY NOT NULL, json TEXT NOT NULL);
                CREATE TABLE pendingWrite (key TEXT PRIMARY KEY NOT NULL, json TEXT, sequence INTEGER NOT NULL, modified INTEGER NOT NULL);
                CREATE TABLE announcement (sequence INTEGER PRIMARY KEY AUTOINCREMENT, reason TEXT NOT NULL, keys TEXT NOT NULL);
                """)
        }
        migrator.registerMigration("v2") { db in
            // An encrypted account's store (SPEC §13): the highest sealed version seen or sent
            // of each record on the wire, kept after the key is gone.
            try db.execute(sql: "CREATE TABLE sealedVersion (recordName TEXT PRIMARY KEY NOT NULL, version INTEGER NOT NULL)")
        }
        return migrator
    }

    /// The state kept, or a fresh one.
    func load() throws -> KeyValueState {
        try queue.read { db in
            var state = KeyValueState(store: store)
            let meta = Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT name, value FROM meta").map { ($0["name"] as String, $0["value"] as String?) })
            state.account = meta["account"] ?? nil
            state.hasFetched = meta["hasFetched"] == "1"
            state.accountChanged = meta["accountChanged"] == "1"
            state.nextSequence = (meta["nextSequence"] ?? nil).flatMap(Int64.init) ?? 1
            state.token = (meta["token"] ?? nil).flatMap { Data(base64Encoded: $0) }.map(ChangeToken.init(opaqueValue:))
            state.zone = meta["zone"] ?? nil
            for row in try Row.fetchAll(db, sql: "SELECT key, json FROM serverValue") {
                guard let key = try? KeyValueKey(validating: row["key"]), let value = try? JSONValue(parsing: row["json"]) else { continue }
                state.server[key] = value
            }
            for row in try Row.fetchAll(db, sql: "SELECT key, json, sequence, modified FROM pendingWrite") {
                guard let key = try? KeyValueKey(validating: row["key"]) else { continue }
                let json: String? = row["json"]
                var value: JSONValue?
                if let json {
                    guard let parsed = try? JSONValue(parsing: json) else { continue }
                    value = parsed
                }
                state.pending[key] = KeyValueState.Pending(value: value, sequence: row["sequence"], modified: Timestamp(nanosecondsSince1970: row["modified"]))
            }
            return state
        }
    }

    /// Writes what changed from `old` to `new`, and `announcements`, in one transaction;
    /// returns the announcements with their sequence numbers.
    func save(from old: KeyValueState, to new: KeyValueState, announcing announcements: [KeyValueChange]) throws -> [KeyValueChange] {
        try queue.write { db in
            let meta: [(String, String?)] = [
                ("account", new.account), ("hasFetched", new.hasFetched ? "1" : "0"),
                ("accountChanged", new.accountChanged ? "1" : "0"), ("nextSequence", String(new.nextSequence)),
                ("token", new.token?.opaqueValue.base64EncodedString()), ("zone", new.zone),
            ]
            for (name, value) in meta {
                try db.execute(sql: "INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)", arguments: [name, value])
            }
            for key in Set(old.server.keys).union(new.server.keys) where old.server[key] != new.server[key] {
                if let value = new.server[key] {
                    try db.execute(sql: "INSERT OR REPLACE INTO serverValue (key, json) VALUES (?, ?)", arguments: [key.name, value.text])
                } else {
                    try db.execute(sql: "DELETE FROM serverValue WHERE key = ?", arguments: [key.name])
                }
            }
            for key in Set(old.pending.keys).union(new.pending.keys) where old.pending[key] != new.pending[key] {
                if let write = new.pending[key] {
                    try db.execute(sql: "INSERT OR REPLACE INTO pendingWrite (key, json, sequence, modified) VALUES (?, ?, ?, ?)",
                                   arguments: [key.name, write.value?.text, write.sequence, write.modified.nanosecondsSince1970])
                } else {
                    try db.execute(sql: "DELETE FROM pendingWrite WHERE key = ?", arguments: [key.name])
                }
            }
            var numbered: [KeyValueChange] = []
            for var change in announcements {
                let keys = String(decoding: try JSONEncoder().encode(change.keys), as: UTF8.self)
                try db.execute(sql: "INSERT INTO announcement (reason, keys) VALUES (?, ?)", arguments: [change.reason.rawValue, keys])
                change.sequence = db.lastInsertedRowID
                numbered.append(change)
            }
            if !numbered.isEmpty {
                try db.execute(sql: "DELETE FROM announcement WHERE sequence <= (SELECT MAX(sequence) FROM announcement) - ?", arguments: [Self.keptChanges])
            }
            return numbered
        }
    }

    /// The highest sealed version seen or sent of each of `names` that has one.
    func sealedVersions(_ names: some Sequence<String>) throws -> [String: UInt64] {
        try queue.read { db in
            var found: [String: UInt64] = [:]
            for name in names {
                if let version = try Int64.fetchOne(db, sql: "SELECT version FROM sealedVersion WHERE recordName = ?", arguments: [name]) {
                    found[name] = UInt64(max(0, version))
                }
            }
            return found
        }
    }

    /// Notes `versions` as seen or sent: each name keeps the larger of the stored and the given.
    func noteSealedVersions(_ versions: [String: UInt64]) throws {
        try queue.write { db in
            for (name, version) in versions {
                try db.execute(sql: """
                    INSERT INTO sealedVersion (recordName, version) VALUES (?, ?)
                    ON CONFLICT (recordName) DO UPDATE SET version = max(version, excluded.version)
                    """, arguments: [name, Int64(clamping: version)])
            }
        }
    }

    /// The versions to seal the next writes of `names` with (one above any seen or sent),
    /// noted as sent before they are returned: a version is never sealed twice.
    func nextSealedVersions(_ names: [String]) throws -> [String: UInt64] {
        try queue.write { db in
            var next: [String: UInt64] = [:]
            for name in names {
                let seen = try Int64.fetchOne(db, sql: "SELECT version FROM sealedVersion WHERE recordName = ?", arguments: [name]) ?? 0
                let version = seen + 1
                try db.execute(sql: "INSERT OR REPLACE INTO sealedVersion (recordName, version) VALUES (?, ?)", arguments: [name, version])
                next[name] = UInt64(version)
            }
            return next
        }
    }

    /// The announcements kept after `sequence`, oldest first.
    func announcements(after sequence: Int64) throws -> [KeyValueChange] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT sequence, reason, keys FROM announcement WHERE sequence > ? ORDER BY sequence", arguments: [sequence]).compactMap { row in
                guard let reason = KeyValueChangeReason(rawValue: row["reason"]),
                      let keys = try? JSONDecoder().decode([String].self, from: Data((row["keys"] as String).utf8))
                else { return nil }
                return KeyValueChange(store: store, sequence: row["sequence"], reason: reason, keys: keys)
            }
        }
    }

    /// The sequence number of the latest announcement (0 when none was made).
    func latestAnnouncement() throws -> Int64 {
        try queue.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM announcement") ?? 0 }
    }
}
