import DocSyncCore
import DocSyncStorage
import Foundation
import GRDB
import Synchronization

/// The accounts of a server: user names, each user's storage quota, and the SHA-256 of each
/// device token with the name of its device, in `DATA/users.sqlite` (WAL, so
/// `docsync-server user …` may run while the server serves).
///
/// Tokens themselves are never stored: `addUser` and `addToken` return the new token once,
/// and `authenticate` hashes what a request presents and compares hashes in constant time.
/// A token, once issued, stays valid; there is no revocation yet. A quota is read afresh
/// for every request that needs it, so a change applies at once.
public final class UserStore: Sendable {
    /// Whom a token belongs to: a user, and the device it was issued for (`nil` when its
    /// issuer named none).
    public struct Account: Sendable, Hashable {
        public var user: String
        public var device: String?

        public init(user: String, device: String?) {
            self.user = user
            self.device = device
        }
    }

    public let path: URL
    let pool: DatabasePool
    /// Hashes already seen to belong to an account: tokens are never revoked, so a hit stays true.
    private let known = Mutex<[String: Account]>([:])

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

    /// Why `name` is not a valid user name, or `nil`: 1–64 characters of lowercase ASCII
    /// letters, digits, `.`, `_` and `-`, not starting with `.` or `-` (it names a directory).
    public static func problem(withUserName name: String) -> String? {
        if name.isEmpty { return "is empty" }
        if name.utf8.count > 64 { return "is longer than 64 characters" }
        if name.hasPrefix(".") || name.hasPrefix("-") { return "starts with '.' or '-'" }
        for byte in name.utf8 {
            let ok = (UInt8(ascii: "a") ... UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            if !ok { return "may hold only lowercase letters, digits, '.', '_' and '-'" }
        }
        return nil
    }

    /// Creates user `name` and returns its first device token, issued for `device` when
    /// given. Throws `invalidArguments` for a bad name or device name, or a user that
    /// already exists.
    public func addUser(_ name: String, device: String? = nil) throws(SyncError) -> String {
        if let problem = Self.problem(withUserName: name) {
            throw SyncError(.invalidArguments, "user name \(name.debugDescription) \(problem)")
        }
        try Self.check(device: device)
        let token = AccessToken.generate()
        try write("add user \(name)") { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM user WHERE name = ?", arguments: [name]) == nil else {
                throw SyncError(.invalidArguments, "user \(name) already exists; use `docsync-server user token \(name)` for another device's token")
            }
            try db.execute(sql: "INSERT INTO user (name, created) VALUES (?, ?)", arguments: [name, Date().timeIntervalSince1970])
            try Self.insertToken(token, for: name, device: device, db)
        }
        return token
    }

    /// Issues another device token for the existing user `name`, for `device` when given.
    /// Throws `invalidArguments` when there is no such user or the device name is bad.
    public func addToken(for name: String, device: String? = nil) throws(SyncError) -> String {
        try Self.check(device: device)
        let token = AccessToken.generate()
        try write("add a token for \(name)") { db in
            try Self.requireUser(name, db)
            try Self.insertToken(token, for: name, device: device, db)
        }
        return token
    }

    /// Sets the most bytes `name` may store (`nil`: no limit). Throws `invalidArguments`
    /// when there is no such user or the quota is negative.
    public func setQuota(_ bytes: Int64?, for name: String) throws(SyncError) {
        if let bytes, bytes < 0 { throw SyncError(.invalidArguments, "a quota cannot be negative") }
        try write("set the quota of \(name)") { db in
            try Self.requireUser(name, db)
            try db.execute(sql: "UPDATE user SET quotaBytes = ? WHERE name = ?", arguments: [bytes, name])
        }
    }

    /// The most bytes `name` may store, or `nil` for no limit (and for an unknown user).
    public func quota(of name: String) throws(SyncError) -> Int64? {
        do {
            return try pool.read { db in try Int64.fetchOne(db, sql: "SELECT quotaBytes FROM user WHERE name = ?", arguments: [name]) }
        } catch {
            throw SyncError(.serviceUnavailable, "cannot read the user store (\(error)); retry shortly")
        }
    }

    /// Every user with the number of tokens issued to it and its quota, sorted by name.
    public func users() throws(SyncError) -> [(name: String, tokens: Int, quotaBytes: Int64?)] {
        do {
            return try pool.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT user.name AS name, (SELECT count(*) FROM token WHERE token.user = user.name) AS tokens, quotaBytes
                    FROM user ORDER BY name
                    """).map { (name: $0["name"], tokens: $0["tokens"], quotaBytes: $0["quotaBytes"]) }
            }
        } catch {
            throw SyncError(.internalError, "cannot read the user store \(path.path) (\(error))")
        }
    }

    /// The account `token` belongs to, or `nil` for an unknown token.
    public func authenticate(_ token: String) throws(SyncError) -> Account? {
        let hash = AccessToken.hash(token)
        if let account = known.withLock({ $0[hash] }) { return account }
        let rows: [(hash: String, account: Account)]
        do {
            // Fetch by an index prefix and compare the whole hash in constant time, so that
            // the comparison's timing says nothing about how much of a guess was right.
            rows = try pool.read { db in
                try Row.fetchAll(db, sql: "SELECT hash, user, device FROM token WHERE prefix = ?", arguments: [String(hash.prefix(8))])
                    .map { (hash: $0["hash"], account: Account(user: $0["user"], device: $0["device"])) }
            }
        } catch {
            throw SyncError(.serviceUnavailable, "cannot read the user store (\(error)); retry shortly")
        }
        var match: Account?
        for row in rows where AccessToken.constantTimeEquals(row.hash, hash) { match = row.account }
        if let match { known.withLock { $0[hash] = match } }
        return match
    }

    private static func insertToken(_ token: String, for user: String, device: String?, _ db: Database) throws {
        let hash = AccessToken.hash(token)
        try db.execute(sql: "INSERT INTO token (hash, prefix, user, created, device) VALUES (?, ?, ?, ?, ?)",
                       arguments: [hash, String(hash.prefix(8)), user, Date().timeIntervalSince1970, device])
    }

    private static func requireUser(_ name: String, _ db: Database) throws {
        guard try Bool.fetchOne(db, sql: "SELECT 1 FROM user WHERE name = ?", arguments: [name]) != nil else {
            throw SyncError(.invalidArguments, "there is no user \(name.debugDescription); create it with `docsync-server user add \(name)`")
        }
    }

    static func check(device: String?) throws(SyncError) {
        if let device, let problem = DeviceName.problem(with: device) {
            throw SyncError(.invalidArguments, "device name \(device.debugDescription) \(problem)")
        }
    }

    private func write(_ what: String, _ body: @escaping @Sendable (Database) throws -> Void) throws(SyncError) {
        do {
            try pool.write(body)
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.internalError, "\(what): \(error)")
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
        return migrator
    }
}
