import DocSyncCore
import Foundation
import Logging

/// Garbage collection of the embedded store (SPEC §4a): on demand, on the store's schedule
/// while the backend is open, and soon after a purge.
extension LocalBackend {
    /// Removes what the store no longer keeps, off the caller's thread: deleted records and
    /// replaced versions past `deleted_retention`, then chunks and manifest nodes that no
    /// live record, Recently Deleted entry or replaced version references and that were
    /// stored longer than `gc_grace` ago (`GarbageCollector`), then packs that are empty or
    /// mostly garbage (`PackCompactor`). Saves, uploads and downloads go on meanwhile.
    ///
    /// One collector works on a store at a time, whatever the process: when another holds
    /// the store's lock, this returns at once with `ran` false.
    @discardableResult
    public func collectGarbage() async throws(SyncError) -> GarbageCollectionReport {
        try await offload { () throws(SyncError) in try self.collectGarbageNow() }
    }

    /// `collectGarbage`, on the calling thread (which it blocks for the whole collection).
    public func collectGarbageNow() throws(SyncError) -> GarbageCollectionReport {
        guard let lock = try CollectionLock.take(in: directory) else {
            logger.info("collection skipped: another collector is working on this store", metadata: ["store": "\(directory.path)"])
            return GarbageCollectionReport()
        }
        defer { withExtendedLifetime(lock) {} }
        return try collect(rewritingWhatLosesChunks: false)
    }

    /// One whole collection, the store's `CollectionLock` held by the caller. With
    /// `rewritingWhatLosesChunks`, every pack the sweep removed a chunk from is rewritten
    /// (or removed, when nothing in it is left), however full it is: no byte of a removed
    /// chunk stays on disk.
    func collect(rewritingWhatLosesChunks: Bool) throws(SyncError) -> GarbageCollectionReport {
        let start = ContinuousClock.now
        var report = GarbageCollectionReport()
        report.ran = true
        report.packBytesBefore = PackCompactor.bytesOnDisk(of: chunks.root)
        (report.expiredDeletedRecords, report.expiredReplacedVersions) = try pruneExpiredVersions()
        var depleted = Set<Int64>()
        do {
            depleted = try GarbageCollector(pool: pool, packs: chunks, grace: settings.collectionGrace, logger: logger).sweep(into: &report)
        } catch let stop as GarbageCollector.Stop {
            report.stoppedBecause = stop.reason
            logger.error("collection stopped before removing anything more", metadata: ["store": "\(directory.path)", "reason": "\(stop.reason)"])
        } catch {
            throw LocalBackend.map(error, "collect garbage")
        }
        if report.stoppedBecause == nil {
            try PackCompactor(pool: pool, packs: chunks, leftoverAge: max(settings.collectionGrace, 3600), logger: logger)
                .run(into: &report, rewriting: rewritingWhatLosesChunks ? depleted : [])
        }
        report.packBytesAfter = PackCompactor.bytesOnDisk(of: chunks.root)
        report.seconds = (ContinuousClock.now - start) / .seconds(1)
        do {
            let finished = Date().timeIntervalSince1970
            try pool.write { db in try StoreCounters.markCollected(at: finished, db) }
        } catch {
            throw LocalBackend.map(error, "note the collection")
        }
        let removedAnything = report.chunksRemoved + report.packsRemoved + report.expiredDeletedRecords + report.expiredReplacedVersions > 0
        logger.log(level: removedAnything ? .info : .debug, "collected garbage", metadata: [
            "store": "\(directory.path)", "chunksRemoved": "\(report.chunksRemoved)", "bytesRemoved": "\(report.chunkBytesRemoved)",
            "packsCompacted": "\(report.packsCompacted)", "packsRemoved": "\(report.packsRemoved)",
            "packBytes": "\(report.packBytesBefore) -> \(report.packBytesAfter)", "seconds": "\(report.seconds)",
        ])
        return report
    }

    /// When the last collection of this store finished, by any process; `nil` before the first.
    public func lastCollection() throws(SyncError) -> Date? {
        do {
            let seconds = try pool.read { db in try StoreCounters.read(db).lastCollectedAt }
            return seconds > 0 ? Date(timeIntervalSince1970: seconds) : nil
        } catch {
            throw LocalBackend.map(error, "read when the store was last collected")
        }
    }

    /// Starts collecting on `settings.collectionInterval` for as long as this backend lives:
    /// first no sooner than a few minutes after opening (so a daemon's start-up is not
    /// slowed), then whenever the interval has passed since the last collection of the store
    /// by any process sharing it.
    func startCollectionSchedule() -> Task<Void, Never>? {
        let interval = settings.collectionInterval
        guard interval > 0 else { return nil }
        let pause = min(interval, 300)
        return Task.detached(priority: .background) { [weak self] in
            var earliest = Date().addingTimeInterval(pause)
            while !Task.isCancelled {
                // Not bound to a strong local: the sleep below must not keep the backend alive.
                guard let last = self.map({ backend in (try? backend.lastCollection()) ?? nil }) else { return }
                let due = max(earliest, (last ?? .distantPast).addingTimeInterval(interval))
                if due.timeIntervalSinceNow > 0 {
                    try? await Task.sleep(for: .seconds(due.timeIntervalSinceNow))
                    continue
                }
                guard let backend = self else { return }
                do { try await backend.collectGarbage() } catch {
                    backend.logger.error("scheduled collection failed", metadata: ["store": "\(backend.directory.path)", "error": "\(error)"])
                }
                earliest = Date().addingTimeInterval(pause)
            }
        }
    }

    /// Collects in the background as soon as no other collector works on the store (trying
    /// again every second for a minute), so that a purge's space comes back promptly.
    func collectSoon() {
        Task.detached(priority: .utility) { [self] in
            for _ in 0 ..< 60 {
                do {
                    if try await collectGarbage().ran { return }
                } catch {
                    logger.error("collection after a purge failed", metadata: ["store": "\(directory.path)", "error": "\(error)"])
                    return
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }
}
