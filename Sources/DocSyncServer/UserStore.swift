import DocSyncCore
import Foundation
import GRDB
import Synchronization

/// The accounts of a server: user names and the SHA-256 of each device token, in
/// `DATA/users.sqlite` (WAL, so `docsync-server user add` may run while the server serves).
///
/// Tokens themselves are never stored: `addUser` and `addToken` return the new token once,
/// and `authenticate` hashes what a request presents and compares hashes in constant time.
/// A token, once issued, stays valid; there is no revocation yet.
public final class UserStore: Sendable {
    public let path: URL
    private let pool: DatabasePool
    /// Hashes already seen to belong to a user: tokens are never revoked, so a hit stays true.
    private let known = Mutex<[String: String]>([:])

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

    /// Creates user `name` and returns its first device token.
    /// Throws `invalidArguments` for a bad name or a user that already exists.
    public func addUser(_ name: String) throws(SyncError) -> String {
        if let problem = Self.problem(withUserName: name) {
            throw SyncError(.invalidArguments, "user name \(name.debugDescription) \(problem)")
        }
        let token = AccessToken.generate()
        try write("add user \(name)") { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM user WHERE name = ?", arguments: [name]) == nil else {
                throw SyncError(.invalidArguments, "user \(name) already exists; use `docsync-server user token \(name)` for another device's token")
            }
            try db.execute(sql: "INSERT INTO user (name, created) VALUES (?, ?)", arguments: [name, Date().timeIntervalSince1970])
            try Self.insertToken(token, for: name, db)
        }
        return token
    }

    /// Issues another device token for the existing user `name`.
    /// Throws `invalidArguments` when there is no such user.
    public func addToken(for name: String) throws(SyncError) -> String {
        let token = AccessToken.generate()
        try write("add a token for \(name)") { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM user WHERE name = ?", arguments: [name]) != nil else {
                throw SyncError(.invalidArguments, "there is no user \(name.debugDescription); create it with `docsync-server user add \(name)`")
            }
            try Self.insertToken(token, for: name, db)
        }
        return token
    }

    /// Every user with the number of tokens issued to it, sorted by name.
    public func users() throws(SyncError) -> [(name: String, tokens: Int)] {
        do {
            return try pool.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT user.name AS name, (SELECT count(*) FROM token WHERE token.user = user.name) AS tokens
                    FROM user ORDER BY name
                    """).map { (name: $0["name"], tokens: $0["tokens"]) }
            }
        } catch {
            throw SyncError(.internalError, "cannot read the user store \(path.path) (\(error))")
        }
    }

    /// The user `token` belongs to, or `nil` for an unknown token.
    public func authenticate(_ token: String) throws(SyncError) -> String? {
        let hash = AccessToken.hash(token)
        if let user = known.withLock({ $0[hash] }) { return user }
        let rows: [(hash: String, user: String)]
        do {
            // Fetch by an index prefix and compare the whole hash in constant time, so that
            // the comparison's timing says nothing about how much of a guess was right.
            rows = try pool.read { db in
                try Row.fetchAll(db, sql: "SELECT hash, user FROM token WHERE prefix = ?", arguments: [String(hash.prefix(8))])
                    .map { (hash: $0["hash"], user: $0["user"]) }
            }
        } catch {
            throw SyncError(.serviceUnavailable, "cannot read the user store (\(error)); retry shortly")
        }
        var match: String?
        for row in rows where AccessToken.constantTimeEquals(row.hash, hash) { match = row.user }
        if let match { known.withLock { $0[hash] = match } }
        return match
    }

    private static func insertToken(_ token: String, for user: String, _ db: Database) throws {
        let hash = AccessToken.hash(token)
        try db.execute(sql: "INSERT INTO token (hash, prefix, user, created) VALUES (?, ?, ?, ?)",
                       arguments: [hash, String(hash.prefix(8)), user, Date().timeIntervalSince1970])
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
        return migrator
    }
}
