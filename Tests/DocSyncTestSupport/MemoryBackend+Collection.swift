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
        let expiry = now.subtracting(seconds: settings.deletedRetention)
        for name in zones.keys.sorted() {
            let deletedBefore = zones[name]!.deleted.count
            zones[name]!.deleted = zones[name]!.deleted.filter { $0.value.deletedAt > expiry }
            report.expiredDeletedRecords += deletedBefore - zones[name]!.deleted.count
            for recordName in zones[name]!.replaced.keys.sorted() {
                let versions = zones[name]!.replaced[recordName]!
                let kept = versions.filter { $0.replacedAt > expiry }
                report.expiredReplacedVersions += versions.count - kept.count
                zones[name]!.replaced[recordName] = kept.isEmpty ? nil : kept
            }
        }
        let graceCutoff = now.subtracting(seconds: settings.collectionGrace)
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

    /// A collection that must not remove anything: what a kept manifest node lists is unknown.
    struct CollectionStop: Error {
        let reason: String
    }

    /// A manifest node to read: how many levels of nodes lie below it (0: it lists data
    /// chunks), or `nil` for a chunk stored within the grace period that only has a node's
    /// length: its entries are kept if it turns out to be a node.
    private struct PendingNode {
        var ref: ChunkRef
        var levelsBelow: Int?
    }

    /// The lengths a manifest node may have (a 4-byte magic and 1–256 entries of 36 bytes).
    private static let nodeLengths = (4 + 36) ... (4 + 36 * ManifestTree.maximumNodeEntries)

    /// Every chunk a kept version references, directly or through manifest nodes, and what
    /// the manifest nodes stored after `graceCutoff` list.
    private func keptChunks(storedAfter graceCutoff: Timestamp) throws(CollectionStop) -> Set<SHA256Digest> {
        var kept = Set<SHA256Digest>()
        var level: [PendingNode] = []
        for zone in zones.values {
            let versions = zone.records.values.map(\.record) + zone.deleted.values.map(\.record) + zone.replaced.values.flatMap { $0.map(\.record) }
            for case let asset? in versions.map(\.asset) {
                kept.formUnion(asset.entries.map(\.digest))
                if asset.depth > 0 { level += asset.entries.map { PendingNode(ref: $0, levelsBelow: asset.depth - 1) } }
            }
        }
        for (digest, chunk) in chunks where chunk.storedAt > graceCutoff && Self.nodeLengths.contains(chunk.bytes.count) && (chunk.bytes.count - 4) % 36 == 0 {
            level.append(PendingNode(ref: ChunkRef(digest: digest, length: chunk.bytes.count), levelsBelow: nil))
        }
        var expanded = Set<SHA256Digest>()
        while !level.isEmpty {
            var unique: [SHA256Digest: PendingNode] = [:]
            for node in level where !expanded.contains(node.ref.digest) {
                // A node known to be one wins over the same chunk only suspected of being one.
                if unique[node.ref.digest]?.levelsBelow == nil { unique[node.ref.digest] = node }
            }
            level = []
            for digest in unique.keys.sorted() {
                let node = unique[digest]!
                expanded.insert(digest)
                guard let bytes = chunks[digest]?.bytes else { continue }  // a node not stored lists nothing to keep
                let entries: [ChunkRef]
                do { entries = try ManifestTree.decodeNode(bytes, ref: ChunkRef(digest: digest, length: bytes.count)) } catch {
                    if node.levelsBelow == nil { continue }  // only looked like a node
                    throw CollectionStop(reason: "kept manifest node \(digest.shortHex) cannot be read (\(error.message)); nothing was removed: purge or save again the record that names it")
                }
                kept.formUnion(entries.map(\.digest))
                switch node.levelsBelow {
                case 0?: break
                case let below?: level += entries.map { PendingNode(ref: $0, levelsBelow: below - 1) }
                case nil: level += entries.filter { Self.nodeLengths.contains($0.length) }.map { PendingNode(ref: $0, levelsBelow: nil) }
                }
            }
        }
        return kept
    }
}
