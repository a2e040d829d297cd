import DocSyncCore
import Foundation
import GRDB

/// Moving a zone into another in the embedded store (SPEC §13, `StorageBackend.moveZone`):
/// the store algorithm empties it and keeps it as a redirect; then what only it referenced
/// is collected at once, and every pack that held such a chunk is rewritten.
extension LocalBackend {
    /// How long a move waits for another collector of the store (of any process) to finish
    /// before it gives up with `zoneBusy`.
    static let moveWaitsForCollector: Duration = .seconds(60)

    /// The store's collection lock is taken first (waiting for another collector of any
    /// process), so that no other collection runs between the move and its own; the rest
    /// runs off the caller's thread (`moveZoneNow`).
    public func moveZone(_ zone: ZoneID, to target: ZoneID) async throws(SyncError) {
        try StoreAlgorithm.admitMove(zone, to: target)
        let lock = try await CollectionLock.wait(in: directory, timeout: Self.moveWaitsForCollector)
        let now = storeNow()
        try await offload { () throws(SyncError) in
            defer { withExtendedLifetime(lock) {} }
            try self.moveZoneNow(zone, to: target, now: now)
        }
    }

    /// `moveZone` on the calling thread, the store's collection lock held: the move commits
    /// (and is announced); the chunks and manifest nodes its removed versions referenced
    /// (`ReleasedChunks`, found by reading the nodes, which are all still stored) lose their
    /// grace period; and one collection removes those nothing else keeps, rewriting every
    /// pack it removed a chunk from. A collection that stops (a damaged manifest node of
    /// another zone) leaves the zone moved and its chunks for a later collection, and says so
    /// in the log.
    ///
    /// What the move and its collection delete is overwritten, not only unlinked (SQLite's
    /// `secure_delete` on the writer meanwhile), and the write-ahead log is truncated after
    /// them: the store's files keep nothing of the zone's records and chunk ids (SPEC §13).
    private func moveZoneNow(_ zone: ZoneID, to target: ZoneID, now: Timestamp) throws(SyncError) {
        try setSecureDelete(true)
        defer {
            try? setSecureDelete(false)
            truncateWriteAheadLog()
        }
        let outcome = try transactNow("move zone \(zone) into \(target)") { rows in
            try StoreAlgorithm.moveZone(zone, to: target, now: now, in: &rows)
        }
        guard outcome.wrote else { return }
        committed()
        var released = outcome.value
        try released.findAll(loading: readNodes)
        try clearGrace(of: released.digests)
        let report = try collect(rewritingWhatLosesChunks: true)
        if let reason = report.stoppedBecause {
            logger.error("a moved zone's chunks were not collected: the collection stopped", metadata: [
                "store": "\(directory.path)", "zone": "\(zone)", "reason": "\(reason)"])
        }
        logger.info("moved a zone", metadata: [
            "store": "\(directory.path)", "zone": "\(zone)", "target": "\(target)", "released": "\(released.digests.count)",
            "collection": "\(report.summary)"])
    }

    /// Has the writer overwrite what it deletes with zeros (`on`), or only unlink it.
    private func setSecureDelete(_ on: Bool) throws(SyncError) {
        do { try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA secure_delete = \(on ? "ON" : "OFF")") } } catch {
            throw SyncError(.internalError, "cannot set secure_delete on the store \(directory.path): \(error)")
        }
    }

    /// Checkpoints the write-ahead log into the database and truncates it, so the frames
    /// written before (the deleted rows' old pages) are gone; a reader of another process
    /// holding an old snapshot is waited for, a few times, and the failure logged: the next
    /// checkpoint that can truncates it.
    private func truncateWriteAheadLog() {
        var lastError: (any Error)?
        for attempt in 0 ..< 20 {
            do {
                try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
                return
            } catch {
                lastError = error
                Thread.sleep(forTimeInterval: 0.05 * Double(attempt + 1))
            }
        }
        logger.warning("the write-ahead log could not be truncated after a zone moved: readers held it; a later checkpoint truncates it",
                       metadata: ["store": "\(directory.path)", "error": "\(lastError.map { "\($0)" } ?? "")"])
    }

    /// The bytes of those of `digests` that are stored and read back right (manifest nodes
    /// of removed versions, read a thousand at a time; one that does not read back right is
    /// left out).
    private func readNodes(_ digests: [SHA256Digest]) throws(SyncError) -> [SHA256Digest: Data] {
        var read: [SHA256Digest: Data] = [:]
        for group in digests.chunked(1000) {
            let places = try chunks.places(of: Array(group))
            if let found = try? chunks.read(places, relocating: false) {
                read.merge(found) { first, _ in first }
                continue
            }
            for (digest, place) in places {
                if let found = try? chunks.read([digest: place], relocating: false) { read.merge(found) { first, _ in first } }
            }
        }
        return read
    }

    /// Makes `digests` old, as if stored before the grace period: the next sweep removes
    /// those nothing keeps (a chunk stored again meanwhile is young again, and stays).
    private func clearGrace(of digests: Set<SHA256Digest>) throws(SyncError) {
        guard !digests.isEmpty else { return }
        do {
            try pool.write { db in
                let clear = try db.directStatement(sql: "UPDATE chunk SET storedAt = 0 WHERE digestKey = ? AND digest = ?")
                for digest in digests {
                    clear.bind(1, digest.indexKey)
                    clear.bind(2, digest)
                    try clear.execute()
                }
            }
        } catch {
            throw LocalBackend.map(error, "release the \(digests.count) chunks of a moved zone")
        }
    }
}
