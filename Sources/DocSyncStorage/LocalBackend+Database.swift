import DocSyncCore
import Foundation
import GRDB

/// The embedded backend's transactions, and how the store algorithm runs in them.
extension LocalBackend {
    /// Runs `body` in an IMMEDIATE transaction (the write lock is taken up front, so a
    /// read-then-write never fails to upgrade under another process's commit), mapping every
    /// error to `SyncError`. `body` may throw `SyncError` to roll back.
    func write<T: Sendable>(_ what: String, _ body: @escaping @Sendable (Database) throws -> T) async throws(SyncError) -> T {
        try await writeDeciding(what) { db in (try body(db), .commit) }
    }

    /// Like `write`, for a body that decides itself whether to commit.
    func writeDeciding<T: Sendable>(_ what: String, _ body: @escaping @Sendable (Database) throws -> (T, Database.TransactionCompletion)) async throws(SyncError) -> T {
        do {
            return try await pool.writeWithoutTransaction { db in
                var value: T?
                try db.inTransaction(.immediate) {
                    let (result, completion) = try body(db)
                    value = result
                    return completion
                }
                return value!
            }
        } catch {
            throw LocalBackend.map(error, what)
        }
    }

    /// Runs `body` on a consistent snapshot.
    func read<T: Sendable>(_ what: String, _ body: @escaping @Sendable (Database) throws -> T) async throws(SyncError) -> T {
        do {
            return try await pool.read(body)
        } catch {
            throw LocalBackend.map(error, what)
        }
    }

    /// Classifies any error of the database layer.
    static func map(_ error: any Error, _ what: String) -> SyncError {
        if let error = error as? SyncError { return error }
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                return SyncError(.zoneBusy, "\(what): the backend database is busy with another writer; retry shortly")
            case .SQLITE_FULL:
                return SyncError(.quotaExceeded, "\(what): the backend's disk is full; free space on it")
            default:
                return SyncError(.internalError, "\(what): \(error.message ?? error.description)")
            }
        }
        return SyncError(.internalError, "\(what): \(error)")
    }

    /// Runs an operation of the store algorithm in an IMMEDIATE transaction over the
    /// store's rows (`LocalStoreRows`): committed when it wrote, rolled back otherwise.
    func transact<T: Sendable>(_ what: String, _ body: @escaping @Sendable (inout LocalStoreRows) throws -> StoreOutcome<T>) async throws(SyncError) -> StoreOutcome<T> {
        try await writeDeciding(what) { db in
            var rows = LocalStoreRows(db: db)
            let outcome = try body(&rows)
            return (outcome, outcome.wrote ? .commit : .rollback)
        }
    }

    /// `transact`, on the calling thread (which it blocks until the transaction is over).
    func transactNow<T>(_ what: String, _ body: (inout LocalStoreRows) throws -> StoreOutcome<T>) throws(SyncError) -> StoreOutcome<T> {
        do {
            return try pool.writeWithoutTransaction { db in
                var outcome: StoreOutcome<T>?
                try db.inTransaction(.immediate) {
                    var rows = LocalStoreRows(db: db)
                    let result = try body(&rows)
                    outcome = result
                    return result.wrote ? .commit : .rollback
                }
                return outcome!
            }
        } catch {
            throw LocalBackend.map(error, what)
        }
    }

    /// Runs a reading operation of the store algorithm on a consistent snapshot.
    func query<T: Sendable>(_ what: String, _ body: @escaping @Sendable (LocalStoreRows) throws -> T) async throws(SyncError) -> T {
        try await read(what) { db in try body(LocalStoreRows(db: db)) }
    }

    /// The time the store stamps on what it writes (deletions, replaced versions).
    func storeNow() -> Timestamp { Timestamp(Date()) }

    /// What the store keeps how long: its settings' retention and grace, and its tombstones'.
    var retention: StoreRetention { StoreRetention(settings: settings, tombstoneRetention: options.tombstoneRetention) }
}
