import DocSyncCore
import Foundation
import PostgresNIO

extension ScaleOutStore {
    /// One request of `key` against a token bucket kept in PostgreSQL, so that every
    /// instance draws on the same bucket: `capacity` requests at once, refilled at
    /// `ratePerSecond`, by the database's clock (`TokenBucket`'s rule). `nil` when the
    /// request may go ahead (a token was taken), else the seconds until one is available
    /// (none taken). One statement.
    public func admit(_ key: String, ratePerSecond: Double, capacity: Double) async throws(SyncError) -> Double? {
        let logger = self.logger
        return try await withConnection("apply the rate limit") { connection in
            let rows = try await connection.statement("""
                INSERT INTO rate_bucket AS b (key, tokens, updated, admitted)
                VALUES (\(key), \(capacity) - 1, extract(epoch FROM clock_timestamp())::float8, true)
                ON CONFLICT (key) DO UPDATE SET
                    tokens = least(\(capacity), b.tokens + greatest(0, excluded.updated - b.updated) * \(ratePerSecond))
                             - CASE WHEN least(\(capacity), b.tokens + greatest(0, excluded.updated - b.updated) * \(ratePerSecond)) >= 1 THEN 1 ELSE 0 END,
                    admitted = least(\(capacity), b.tokens + greatest(0, excluded.updated - b.updated) * \(ratePerSecond)) >= 1,
                    updated = greatest(b.updated, excluded.updated)
                RETURNING tokens, admitted
                """, logger: logger)
            for try await (tokens, admitted) in rows.decode((Double, Bool).self) {
                return admitted ? nil : (1 - tokens) / ratePerSecond
            }
            return nil
        }
    }

    /// Forgets the buckets of keys not seen for an hour (they are full again by then).
    func forgetIdleRateBuckets(_ connection: PostgresConnection) async throws {
        try await connection.statement("DELETE FROM rate_bucket WHERE updated < extract(epoch FROM clock_timestamp()) - 3600", logger: logger)
    }
}
