import GRDB

/// The embedded store's running totals, one row (`storeCounter`): the chunks stored and
/// their bytes, kept by every store and every collection in the transaction that changes
/// them, so `usage()` and quota checks never count the chunks one by one; and when the last
/// collection finished, which the schedules of every process sharing the store go by.
enum StoreCounters {
    struct Values {
        var chunkCount: Int64
        var chunkBytes: Int64
        /// Seconds since 1970; 0 before the first collection.
        var lastCollectedAt: Double
    }

    static func read(_ db: Database) throws -> Values {
        let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT chunkCount, chunkBytes, lastCollectedAt FROM storeCounter WHERE id = 1"))!
        return Values(chunkCount: row[0], chunkBytes: row[1], lastCollectedAt: row[2])
    }

    /// Adds `chunks` chunks of `bytes` bytes (negative when they were removed).
    static func add(chunks: Int64, bytes: Int64, _ db: Database) throws {
        guard chunks != 0 || bytes != 0 else { return }
        try db.cachedStatement(sql: "UPDATE storeCounter SET chunkCount = chunkCount + ?, chunkBytes = chunkBytes + ? WHERE id = 1")
            .execute(arguments: [chunks, bytes])
    }

    static func markCollected(at seconds: Double, _ db: Database) throws {
        try db.execute(sql: "UPDATE storeCounter SET lastCollectedAt = ? WHERE id = 1", arguments: [seconds])
    }
}
