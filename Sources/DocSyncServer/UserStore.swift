import DocSyncCore
import DocSyncStorage
import Foundation
import GRDB

/// The accounts of the one-machine server in `DATA/users.sqlite` (WAL, so `docsync-server
/// user …` may run while the server serves): the rows under `AccountDirectory`, which
/// decides. User names, each user's storage quota, and the SHA-256 of each device token
/// with the name of its device; who shares which zone with whom (`UserStore+Shares`).
public final class UserStore: AccountRows {
    /// Whom a token belongs to (`AccountIdentity`).
    public typealias Account = AccountIdentity

    public let path: URL
    let pool: DatabasePool

    /// Opens (creating if needed) the store of the data directory `dataDirectory`.
    public init(dataDirectory: URL) throws(SyncError) {
        path = dataDirectory.appendingPathComponent("users.sqlite")
        do {
            try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            configuration.label = "docsync.server.users"
            pool = try DatabasePool(path: path.path, configuration: configuration)
            try Self.migrator.migrate(pool)
        } catch {
            throw SyncError(.internalError, "cannot open the user store \(path.path) (\(error)); check the data directory's permissions")
        }
    }

    public func insertAccount(_ name: String, tokenHash: String, device: String?) async throws(SyncError) {
        try write("add user \(name)") { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM user WHERE name = ?", arguments: [name]) == nil else {
                throw AccountRules.userExists(name)
            }
            try db.execute(sql: "INSERT INTO user (name, created) VALUES (?, ?)", arguments: [name, Date().timeIntervalSince1970])
            try Self.insertToken(tokenHash, for: name, device: device, db)
        }
    }

    public func insertToken(for name: String, tokenHash: String, device: String?) async throws(SyncError) {
        try write("add a token for \(name)") { db in
            try Self.requireUser(name, db)
            try Self.insertToken(tokenHash, for: name, device: device, db)
        }
    }

    public func updateQuota(_ bytes: Int64?, for name: String) async throws(SyncError) {
        try write("set the quota of \(name)") { db in
            try Self.requireUser(name, db)
            try db.execute(sql: "UPDATE user SET quotaBytes = ? WHERE name = ?", arguments: [bytes, name])
        }
    }

    public func quota(of name: String) async throws(SyncError) -> Int64? {
        try await read { db in try Int64.fetchOne(db, sql: "SELECT quotaBytes FROM user WHERE name = ?", arguments: [name]) }
    }

    public func accounts() async throws(SyncError) -> [AccountSummary] {
        do {
            return try await pool.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT user.name AS name, (SELECT count(*) FROM token WHERE token.user = user.name) AS tokens, quotaBytes FROM user
                    """).map { AccountSummary(name: $0["name"], tokens: $0["tokens"], quotaBytes: $0["quotaBytes"]) }
            }
        } catch {
            throw SyncError(.internalError, "cannot read the user store \(path.path) (\(error))")
        }
    }

    public func tokens(withHashPrefix prefix: String) async throws(SyncError) -> [TokenRow] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT hash, user, device FROM token WHERE prefix = ?", arguments: [prefix])
                .map { TokenRow(hash: $0["hash"], user: $0["user"], device: $0["device"]) }
        }
    }

    private static func insertToken(_ hash: String, for user: String, device: String?, _ db: Database) throws {
        try db.execute(sql: "INSERT INTO token (hash, prefix, user, created, device) VALUES (?, ?, ?, ?, ?)",
                       arguments: [hash, String(hash.prefix(8)), user, Date().timeIntervalSince1970, device])
    }

    private static func requireUser(_ name: String, _ db: Database) throws {
        guard try Bool.fetchOne(db, sql: "SELECT 1 FROM user WHERE name = ?", arguments: [name]) != nil else {
            throw AccountRules.noSuchUser(name)
        }
    }

    func write<T>(_ what: String, _ body: (Database) throws -> T) throws(SyncError) -> T {
        do {
            return try pool.write(body)
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.internalError, "\(what): \(error)")
        }
    }

    /// A read of the user store, off the caller's thread (a request's task never waits on
    /// SQLite); `serviceUnavailable` when it fails.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(SyncError) -> T {
        do {
            return try await pool.read(body)
        } catch {
            throw SyncError(.serviceUnavailable, "cannot read the user store (\(error)); retry shortly")
        }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: users and token hashes") { db in
            try db.execute(sql: """
                CREATE TABLE user (name TEXT PRIMARY KEY NOT NULL, created DOUBLE NOT NULL) WITHOUT ROWID;
                CREATE TABLE token (
                    hash TEXT PRIMARY KEY NOT NULL,     -- SHA-256 of the token, lowercase hex
                    prefix TEXT NOT NULL,               -- its first 8 hex digits, for the look-up
                    user TEXT NOT NULL REFERENCES user(name) ON DELETE CASCADE,
                    created DOUBLE NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX token_by_prefix ON token(prefix);
                """)
        }
        migrator.registerMigration("v2: quotas, and the device of each token") { db in
            try db.execute(sql: """
                ALTER TABLE user ADD COLUMN quotaBytes INTEGER;  -- NULL: no limit
                ALTER TABLE token ADD COLUMN device TEXT;        -- NULL: issued without a device name
                """)
        }
        migrator.registerMigration("v3: shares") { db in
            try db.execute(sql: sharesMigration)
        }
        return migrator
    }
}
