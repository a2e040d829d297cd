import DocSyncCore
import Foundation
import Logging
import PostgresNIO

/// The accounts of the scale-out store: user names, quotas, and the SHA-256 of each device
/// token with its device's name (tokens themselves are never stored; docsync-server hashes
/// what a request presents and compares hashes in constant time).
extension ScaleOutStore {
    /// One issued token as stored: its hash, its account's name and its device.
    public struct TokenRow: Sendable, Hashable {
        public var hash: String
        public var user: String
        public var device: String?
    }

    /// Creates the account `name` with a first token; `invalidArguments` when it exists.
    public func addAccount(_ name: String, tokenHash: String, device: String?) async throws(SyncError) {
        let logger = self.logger
        try await withConnection("add user \(name)") { connection in
            try await connection.transaction(logger) { connection in
                var created = false
                for try await _ in try await connection.statement("""
                    INSERT INTO account (name, created) VALUES (\(name), extract(epoch FROM now())) ON CONFLICT (name) DO NOTHING RETURNING id
                    """, logger: logger) {
                    created = true
                }
                guard created else {
                    throw SyncError(.invalidArguments, "user \(name) already exists; use `docsync-server user token \(name)` for another device's token")
                }
                try await Self.insertToken(tokenHash, for: name, device: device, connection, logger)
                return ((), commit: true)
            }
        }
    }

    /// Adds a token for the existing account `name`; `invalidArguments` when there is none.
    public func addToken(for name: String, tokenHash: String, device: String?) async throws(SyncError) {
        let logger = self.logger
        try await withConnection("add a token for \(name)") { connection in
            try await Self.insertToken(tokenHash, for: name, device: device, connection, logger)
        }
    }

    /// Sets the most bytes `name` may store (`nil`: no limit); `invalidArguments` when there
    /// is no such account.
    public func setQuota(_ bytes: Int64?, for name: String) async throws(SyncError) {
        let logger = self.logger
        try await withConnection("set the quota of \(name)") { connection in
            var found = false
            for try await _ in try await connection.statement("UPDATE account SET quota_bytes = \(bytes) WHERE name = \(name) RETURNING 1", logger: logger) {
                found = true
            }
            guard found else { throw Self.noSuchUser(name) }
        }
    }

    /// The most bytes `name` may store, or `nil` for no limit (and for an unknown account).
    public func quota(of name: String) async throws(SyncError) -> Int64? {
        let logger = self.logger
        return try await withConnection("read the quota of \(name)") { connection in
            for try await quota in try await connection.statement("SELECT quota_bytes FROM account WHERE name = \(name)", logger: logger).decode(Int64?.self) {
                return quota
            }
            return nil
        }
    }

    /// Every account with the number of its tokens and its quota, sorted by name.
    public func accounts() async throws(SyncError) -> [(name: String, tokens: Int, quotaBytes: Int64?)] {
        let logger = self.logger
        return try await withConnection("list the users") { connection in
            var found: [(name: String, tokens: Int, quotaBytes: Int64?)] = []
            let rows = try await connection.statement("""
                SELECT name, (SELECT count(*) FROM token WHERE token.account = account.id), quota_bytes FROM account ORDER BY name COLLATE "C"
                """, logger: logger)
            for try await (name, tokens, quota) in rows.decode((String, Int64, Int64?).self) { found.append((name, Int(tokens), quota)) }
            return found
        }
    }

    /// The tokens whose hash starts with `prefix` (the first 8 hex digits), for the caller
    /// to compare whole hashes in constant time.
    public func tokens(withHashPrefix prefix: String) async throws(SyncError) -> [TokenRow] {
        let logger = self.logger
        return try await withConnection("look up a token") { connection in
            var found: [TokenRow] = []
            let rows = try await connection.statement("""
                SELECT token.hash, account.name, token.device FROM token JOIN account ON account.id = token.account WHERE token.prefix = \(prefix)
                """, logger: logger)
            for try await (hash, user, device) in rows.decode((String, String, String?).self) { found.append(TokenRow(hash: hash, user: user, device: device)) }
            return found
        }
    }

    private static func insertToken(_ hash: String, for name: String, device: String?, _ connection: PostgresConnection, _ logger: Logger) async throws {
        let prefix = String(hash.prefix(8))
        var inserted = false
        for try await _ in try await connection.statement("""
            INSERT INTO token (hash, prefix, account, created, device)
            SELECT \(hash), \(prefix), id, extract(epoch FROM now()), \(device) FROM account WHERE name = \(name) RETURNING 1
            """, logger: logger) {
            inserted = true
        }
        guard inserted else { throw noSuchUser(name) }
    }

    static func noSuchUser(_ name: String) -> SyncError {
        SyncError(.invalidArguments, "there is no user \(name.debugDescription); create it with `docsync-server user add \(name)`")
    }
}

extension ScaleOutStore {
    /// When the last whole collection finished (`nil`: never).
    public func lastCollection() async throws(SyncError) -> Date? {
        let logger = self.logger
        return try await withConnection("read the last collection") { connection in
            for try await seconds in try await connection.statement("SELECT min(last_collected_at) FROM account", logger: logger).decode(Double?.self) {
                return seconds.flatMap { $0 > 0 ? Date(timeIntervalSince1970: $0) : nil }
            }
            return nil
        }
    }
}
