import DocSyncCore
import DocSyncStorage
import Foundation

/// Tombstone compaction, expiry of kept versions and garbage collection of `MemoryBackend`,
/// as the embedded backend does them (`LocalBackend+Collection`, `GarbageCollector`), at
/// the times of the injected clock.
extension MemoryBackend {
    /// Removes what the store no longer keeps, now by the clock: deleted records and
    /// replaced versions past `settings.deletedRetention`, then the chunks (and manifest
    /// nodes) that no live record, Recently Deleted entry or replaced version references —
    /// through their manifest trees — and that were stored (or stored again) at least
    /// `settings.collectionGrace` ago. A manifest node stored within the grace period keeps
    /// what it lists, for an upload whose record is not saved yet.
    ///
    /// When a kept version's manifest node cannot be read (damaged), no chunk is removed and
    /// the report's `stoppedBecause` says which. The report's times and pack figures are 0.
    @discardableResult
    public func collectGarbage() -> GarbageCollectionReport {
        state.withLock { state in state.collectGarbage(at: clock(), settings: settings) }
    }

    /// Removes the tombstones of deletions made at or before `cutoff`, so that tokens from
    /// before them get `changeTokenExpired`. Returns how many went.
    @discardableResult
    public func compactTombstones(deletedThrough cutoff: Timestamp) -> Int {
        state.withLock { state in state.compactTombstones(deletedThrough: cutoff) }
    }

    /// Removes the tombstones at least `age` seconds old by the clock (a negative age: every
    /// one), as `LocalBackend.compactTombstones(olderThan:)` does. Returns how many went.
    @discardableResult
    public func compactTombstones(olderThan age: TimeInterval) -> Int {
        state.withLock { state in state.compactTombstones(deletedThrough: clock().subtracting(seconds: age)) }
    }
}

extension MemoryBackendState {
    /// Starts the schedules of a store opened at `now`: compaction an hour on, the first
    /// collection five minutes on (or the interval, if shorter).
    mutating func startSchedules(at now: Timestamp, _ settings: StoreSettings) {
        lastCompaction = now
        nextCollection = settings.collectionInterval > 0 ? now.adding(seconds: min(settings.collectionInterval, 300)) : nil
    }

    /// Compacts tombstones when the last compaction is over an hour old, and collects when
    /// the collection is due.
    mutating func performDueUpkeep(at now: Timestamp, settings: StoreSettings, tombstoneRetention: TimeInterval) {
        if now > lastCompaction.adding(seconds: 3600) {
            lastCompaction = now
            compactTombstones(deletedThrough: now.subtracting(seconds: tombstoneRetention))
        }
        if let due = nextCollection, now >= due { collectGarbage(at: now, settings: settings) }
    }

    @discardableResult
    mutating func compactTombstones(deletedThrough cutoff: Timestamp) -> Int {
        var removed = 0
        for name in zones.keys.sorted() {
            let old = zones[name]!.tombstones.filter { $0.value.deletedAt <= cutoff }
            guard let through = old.values.map(\.seq).max() else { continue }
            for recordName in old.keys { zones[name]!.tombstones[recordName] = nil }
            zones[name]!.compactedThrough = max(zones[name]!.compactedThrough, through)
            removed += old.count
        }
        return removed
    }

    /// One whole collection at `now` (see `MemoryBackend.collectGarbage`); the next scheduled
    /// one is due an interval later.
    @discardableResult
    mutating func collectGarbage(at now: Timestamp, settings: StoreSettings) -> GarbageCollectionReport {
        var report = GarbageCollectionReport()
        report.ran = true
        if settings.collectionInterval > 0 { nextCollection = now.adding(seconds: settings.collectionInterval) }
        let retention = StoreRetention(settings: settings)
        for name in zones.keys.sorted() {
            let deletedBefore = zones[name]!.deleted.count
            zones[name]!.deleted = zones[name]!.deleted.filter { retention.keepsVersion(stampedAt: $0.value.deletedAt, now: now) }
            report.expiredDeletedRecords += deletedBefore - zones[name]!.deleted.count
            for recordName in zones[name]!.replaced.keys.sorted() {
                let versions = zones[name]!.replaced[recordName]!
                let kept = versions.filter { retention.keepsVersion(stampedAt: $0.replacedAt, now: now) }
                report.expiredReplacedVersions += versions.count - kept.count
                zones[name]!.replaced[recordName] = kept.isEmpty ? nil : kept
            }
        }
        let graceCutoff = retention.graceCutoff(now: now)
        let kept: Set<SHA256Digest>
        do { kept = try keptChunks(storedAfter: graceCutoff) } catch {
            report.stoppedBecause = error.reason
            return report
        }
        let garbage = chunks.filter { $0.value.storedAt <= graceCutoff && !kept.contains($0.key) }
        for (digest, chunk) in garbage {
            chunks[digest] = nil
            report.chunksRemoved += 1
            report.chunkBytesRemoved += Int64(chunk.bytes.count)
        }
        chunkBytes -= report.chunkBytesRemoved
        return report
    }

    /// Collects at once what a moved zone's versions alone referenced (`released`): every
    /// released chunk (through the manifest nodes, all still stored) loses its grace period,
    /// then one whole collection at `now` removes those nothing else keeps.
    mutating func collect(_ released: ReleasedChunks, at now: Timestamp, settings: StoreSettings) -> GarbageCollectionReport {
        var released = released
        let stored = chunks
        released.findAll { digests in
            var read: [SHA256Digest: Data] = [:]
            for digest in digests { read[digest] = stored[digest]?.bytes }
            return read
        }
        for digest in released.digests where chunks[digest] != nil { chunks[digest]!.storedAt = Timestamp(nanosecondsSince1970: .min) }
        return collectGarbage(at: now, settings: settings)
    }

    /// Every chunk a kept version references, directly or through manifest nodes, and what
    /// the manifest nodes stored after `graceCutoff` list (`ManifestWalk`).
    private func keptChunks(storedAfter graceCutoff: Timestamp) throws(ManifestWalk.Stop) -> Set<SHA256Digest> {
        var kept = Set<SHA256Digest>()
        var walk = ManifestWalk()
        for zone in zones.values {
            let versions = zone.records.values.map(\.body) + zone.deleted.values.map(\.version.body)
                + zone.replaced.values.flatMap { $0.map(\.version.body) }
            for body in versions {
                do { kept.formUnion(try walk.keep(body: body).map(\.digest)) } catch {
                    throw ManifestWalk.Stop(reason: error.message)
                }
            }
        }
        walk.suspect(chunks.filter { $0.value.storedAt > graceCutoff }.map { ChunkRef(digest: $0.key, length: $0.value.bytes.count) })
        while true {
            let level = walk.nextLevel()
            if level.isEmpty { return kept }
            var read: [SHA256Digest: Data] = [:]
            for digest in level.keys { read[digest] = chunks[digest]?.bytes }
            kept.formUnion(try walk.expand(level, read: read).marked.map(\.digest))
        }
    }
}
