import DocSyncCore
import DocSyncStorage
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// Collecting at once what a moved zone alone referenced (SPEC §13, `StorageBackend.moveZone`),
/// without the grace period, under the collectors' lock like any collection.
extension ScaleOutCollector {
    /// Runs `body` on one connection holding the collectors' advisory lock (so no collection
    /// of any instance runs meanwhile), then releases it. While another instance collects,
    /// tries again every 100 ms, without holding a connection, for at most `timeout`:
    /// `zoneBusy` then (retry shortly).
    func holdingLock<T: Sendable>(_ what: @autoclosure () -> String, timeout: Duration,
                                  _ body: (PostgresConnection) async throws -> T) async throws(SyncError) -> T {
        let deadline = ContinuousClock.now + timeout, logger = store.logger
        while true {
            let done: T? = try await store.withConnection(what()) { connection in
                var locked = false
                for try await got in try await connection.statement("SELECT pg_try_advisory_lock(\(Self.lockKey))", logger: logger).decode(Bool.self) {
                    locked = got
                }
                guard locked else { return nil }
                do {
                    let value = try await body(connection)
                    try await connection.statement("SELECT pg_advisory_unlock(\(Self.lockKey))", logger: logger)
                    return value
                } catch {
                    _ = try? await connection.statement("SELECT pg_advisory_unlock(\(Self.lockKey))", logger: logger)
                    throw error
                }
            }
            if let done { return done }
            guard ContinuousClock.now < deadline else {
                throw SyncError(.zoneBusy, "\(what()): a garbage collection of the store is still running after \(timeout); retry shortly")
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Removes at once the chunks of `account` in `released` that nothing else keeps, the
    /// collectors' lock held on `connection`: their manifest nodes are read (all still
    /// stored) to find every chunk released, their grace period is cleared, the account is
    /// swept, and every pack the sweep removed a chunk from is rewritten, the emptied ones
    /// removed with their objects. Chunks something else keeps stay (the sweep marks them);
    /// one stored again while this runs is young again and stays.
    func collect(_ released: ReleasedChunks, of account: Int64, _ connection: PostgresConnection) async throws -> GarbageCollectionReport {
        var released = released, report = GarbageCollectionReport()
        report.ran = true
        let backend = store.backend(account: account), logger = store.logger
        while true {
            let level = released.nextNodes()
            if level.isEmpty { break }
            let places = try await backend.places(of: Array(level.keys))
            var read: [SHA256Digest: Data] = [:]
            if let all = try? await backend.read(places) {
                read = all
            } else {
                for (digest, place) in places { if let one = try? await backend.read([digest: place]) { read.merge(one) { first, _ in first } } }
            }
            released.read(level, bytes: read)
        }
        guard !released.digests.isEmpty else { return report }
        let keys = released.digests.map { ByteBuffer(bytes: $0.bytes) }
        try await connection.statement("UPDATE chunk SET stored_at = 0 WHERE account = \(account) AND digest = ANY(\(keys))", logger: logger)
        let cutoff = ScaleOutBackend.storageTime(StoreRetention(settings: store.settings).graceCutoff(now: Timestamp(Date())).date)
        do {
            let depleted = try await sweep(account: account, olderThan: cutoff, into: &report, connection)
            try await rewrite(depleted, of: account, into: &report, connection)
            try await removeEmptyPacks(of: account, into: &report, connection)
        } catch let stop as Stop {
            report.stoppedBecause = stop.reason
        }
        return report
    }
}
