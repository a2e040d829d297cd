import DocSyncCore
import DocSyncS3
import PostgresNIO

/// Classifies what PostgreSQL (or the way to it) answered as the `SyncError` a client acts on.
enum PostgresFailure {
    static func map(_ error: any Error, _ what: String) -> SyncError {
        if let error = error as? SyncError { return error }
        if error is S3Error { return ScaleOutBackend.map(error, what) }
        if let error = error as? PostgresTransactionError {
            if let inner = error.closureError ?? error.beginError ?? error.commitError { return map(inner, what) }
        }
        guard let error = error as? PSQLError else {
            if error is CancellationError { return SyncError(.networkFailure, "\(what): cancelled") }
            return SyncError(.internalError, "\(what): \(error)")
        }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            let message = error.serverInfo?[.message] ?? "error \(state)"
            switch state {
            case "40001", "40P01", "55P03":  // serialization failure, deadlock, lock not available
                return SyncError(.zoneBusy, "\(what): the database was busy with another writer (\(message)); retry shortly")
            case "53100":  // disk full
                return SyncError(.quotaExceeded, "\(what): the database's disk is full (\(message)); the operator must free space")
            case "53300", "57P01", "57P02", "57P03", "08000", "08003", "08006":  // too many connections, shutdown, connection
                return SyncError(.serviceUnavailable, "\(what): the database is unavailable (\(message)); retry shortly")
            default:
                return SyncError(.internalError, "\(what): the database refused it (\(state): \(message))")
            }
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed, .queryCancelled:
            return SyncError(.serviceUnavailable, "\(what): the database cannot be reached (\(error.code)); retry shortly")
        default:
            return SyncError(.internalError, "\(what): \(error.code) \(String(reflecting: error.underlying))")
        }
    }
}

extension PostgresConnection {
    /// Runs `body` in a transaction (READ COMMITTED unless `isolation` says otherwise) that
    /// commits when `body` says so and rolls back otherwise, or when it throws.
    func transaction<T>(
        _ logger: Logger, isolation: String? = nil,
        _ body: (PostgresConnection) async throws -> (T, commit: Bool)
    ) async throws -> T {
        try await statement(PostgresQuery(unsafeSQL: isolation.map { "BEGIN ISOLATION LEVEL \($0)" } ?? "BEGIN"), logger: logger)
        do {
            let (value, commit) = try await body(self)
            try await statement(commit ? "COMMIT" : "ROLLBACK", logger: logger)
            return value
        } catch {
            _ = try? await statement("ROLLBACK", logger: logger)
            throw error
        }
    }
}

extension PostgresConnection {
    /// Sends `query`, counted in `ScaleOutMetrics.statements`.
    @discardableResult
    func statement(_ query: PostgresQuery, logger: Logger, file: String = #fileID, line: Int = #line) async throws -> PostgresRowSequence {
        ScaleOutMetrics.statements.increment()
        return try await self.query(query, logger: logger, file: file, line: line)
    }
}
