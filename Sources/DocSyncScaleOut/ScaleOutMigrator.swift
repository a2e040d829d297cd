import DocSyncCore
import Logging
import PostgresNIO

/// Applies `ScaleOutSchema.migrations` that a database lacks, in order, each in its own
/// transaction, while holding a PostgreSQL advisory lock: instances starting together wait
/// for the first, then find nothing left to do. A database that has migrations this build
/// does not know (a newer instance upgraded it) is used as it is: migrations keep earlier
/// releases working, which is what lets instances be upgraded one at a time.
///
/// It runs on a connection of its own, opened and closed around it, before the store's
/// pool (`PostgresClient`) is started: a session-level advisory lock belongs on one
/// connection held throughout, and the pool is only used once it runs.
enum ScaleOutMigrator {
    /// The advisory lock's key: "docsync migrate" in 8 bytes.
    static let lockKey: Int64 = 0x646F_6373_796E_636D

    /// Migrates the database at `database`. Returns the names applied now. Throws
    /// `serviceUnavailable` when the database cannot be reached.
    @discardableResult
    static func migrate(_ database: PostgresLocation, logger: Logger) async throws(SyncError) -> [String] {
        let connection: PostgresConnection
        do {
            connection = try await database.connect(logger: logger)
        } catch {
            throw PostgresFailure.map(error, "connect to migrate the database's schema")
        }
        do {
            let applied = try await migrate(connection, logger: logger)
            try? await connection.close()
            return applied
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Migrates the database `connection` is open on, holding the lock on it; with
    /// `lastMigration`, no further than the migration of that name (tests build old databases).
    static func migrate(_ connection: PostgresConnection, upTo lastMigration: String? = nil, logger: Logger) async throws(SyncError) -> [String] {
        do {
            try await connection.statement("SELECT pg_advisory_lock(\(lockKey))", logger: logger)
            do {
                let applied = try await apply(connection, upTo: lastMigration, logger: logger)
                try await connection.statement("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
                return applied
            } catch {
                _ = try? await connection.statement("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
                throw error
            }
        } catch {
            throw PostgresFailure.map(error, "migrate the database's schema")
        }
    }

    private static func apply(_ connection: PostgresConnection, upTo lastMigration: String?, logger: Logger) async throws -> [String] {
        try await connection.statement("""
            CREATE TABLE IF NOT EXISTS schema_migration (
                name TEXT PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL
            )
            """, logger: logger)
        var done = Set<String>()
        for try await name in try await connection.statement("SELECT name FROM schema_migration", logger: logger).decode(String.self) {
            done.insert(name)
        }
        let known = Set(ScaleOutSchema.migrations.map(\.name))
        let unknown = done.subtracting(known)
        if !unknown.isEmpty {
            logger.notice("the database has migrations this release does not know; a newer release upgraded it and this one works on",
                          metadata: ["migrations": "\(unknown.sorted())"])
        }
        var applied: [String] = []
        let count = lastMigration.flatMap { last in ScaleOutSchema.migrations.firstIndex { $0.name == last }.map { $0 + 1 } }
            ?? ScaleOutSchema.migrations.count
        for migration in ScaleOutSchema.migrations.prefix(count) where !done.contains(migration.name) {
            try await connection.transaction(logger) { connection in
                for statement in migration.sql { try await connection.statement(PostgresQuery(unsafeSQL: statement), logger: logger) }
                try await migration.rewrite?(connection, logger)
                let name = migration.name
                try await connection.statement("INSERT INTO schema_migration (name, applied_at) VALUES (\(name), extract(epoch FROM now()))", logger: logger)
                return ((), commit: true)
            }
            logger.info("applied a schema migration", metadata: ["migration": "\(migration.name)"])
            applied.append(migration.name)
        }
        return applied
    }
}
