import DocSyncCore
import DocSyncStorage
import Foundation
import Logging
import PostgresNIO

/// The accounts of the scale-out store: the rows under `AccountDirectory` (user names,
/// quotas, and the SHA-256 of each device token with its device's name), in the `account`
/// and `token` tables every instance shares.
extension ScaleOutStore: AccountRows {
    public func insertAccount(_ name: String, tokenHash: String, device: String?) async throws(SyncError) {
        let logger = self.logger
        try await withConnection("add user \(name)") { connection in
            try await connection.transaction(logger) { connection in
                var created = false
                for try await _ in try await connection.statement("""
                    INSERT INTO account (name, created) VALUES (\(name), extract(epoch FROM now())) ON CONFLICT (name) DO NOTHING RETURNING id
                    """, logger: logger) {
                    created = true
                }
                guard created else { throw AccountRules.userExists(name) }
                try await Self.insertToken(tokenHash, for: name, device: device, connection, logger)
                return ((), commit: true)
            }
        }
    }

    public func insertToken(for name: String, tokenHash: String, device: String?) async throws(SyncError) {
        let logger = self.logger
        try await withConnection("add a token for \(name)") { connection in
            try await Self.insertToken(tokenHash, for: name, device: device, connection, logger)
        }
    }

    public func updateQuota(_ bytes: Int64?, for name: String) async throws(SyncError) {
        let logger = self.logger
        try await withConnection("set the quota of \(name)") { connection in
            var found = false
            for try await _ in try await connection.statement("UPDATE account SET quota_bytes = \(bytes) WHERE name = \(name) RETURNING 1", logger: logger) {
                found = true
            }
            guard found else { throw AccountRules.noSuchUser(name) }
        }
    }

    public func quota(of name: String) async throws(SyncError) -> Int64? {
        let logger = self.logger
        return try await withConnection("read the quota of \(name)") { connection in
            for try await quota in try await connection.statement("SELECT quota_bytes FROM account WHERE name = \(name)", logger: logger).decode(Int64?.self) {
                return quota
            }
            return nil
        }
    }

    public func accounts() async throws(SyncError) -> [AccountSummary] {
        let logger = self.logger
        return try await withConnection("list the users") { connection in
            var found: [AccountSummary] = []
            let rows = try await connection.statement("""
                SELECT name, (SELECT count(*) FROM token WHERE token.account = account.id), quota_bytes FROM account
                """, logger: logger)
            for try await (name, tokens, quota) in rows.decode((String, Int64, Int64?).self) {
                found.append(AccountSummary(name: name, tokens: Int(tokens), quotaBytes: quota))
            }
            return found
        }
    }

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
        guard inserted else { throw AccountRules.noSuchUser(name) }
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
