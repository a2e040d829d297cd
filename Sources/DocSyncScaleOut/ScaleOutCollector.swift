import DocSyncCore
import DocSyncS3
import DocSyncStorage
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// Garbage collection of the scale-out store, one collector at a time across every
/// instance (a PostgreSQL advisory lock; an instance that finds it held skips its turn).
/// What is kept and for how long is decided for every store by `ManifestWalk` and
/// `StoreRetention`:
/// - deleted records and replaced versions past the retention go; tombstones past
///   `tombstoneRetention` go and expire the change tokens that could have missed them;
/// - a chunk is kept while a live record, a Recently Deleted entry or a replaced version
///   references it (directly, or through the manifest nodes of a large asset) and while it
///   was stored (or stored again) less than the grace period ago; every other chunk goes;
/// - a pack mostly garbage has its live chunks copied to a new pack (`compactSparsePacks`);
///   a pack object with no chunk left goes, and so does any object under `packs/` that no
///   pack row names once it is older than the grace period (an upload that died between
///   its object and its rows).
///
/// Marking reads without locks; each account's removal then runs in one transaction that
/// first takes the account's row lock (as every save does), marks what was saved since,
/// and removes a chunk only if it is still unmarked and still older than the grace
/// period. A save either committed before (and is marked) or waits and then finds the
/// chunk gone (`chunkNotFound`, uploaded again): no record ever names a removed chunk.
public struct ScaleOutCollector: Sendable {
    public let store: ScaleOutStore
    /// How long tombstones are kept: a device offline for longer refetches everything.
    public var tombstoneRetention: TimeInterval

    /// The advisory lock's key: "docsync collect" in 8 bytes.
    static let lockKey: Int64 = 0x646F_6373_636F_6C6C

    public init(store: ScaleOutStore, tombstoneRetention: TimeInterval = StoreRetention.defaultTombstoneRetention) {
        self.store = store
        self.tombstoneRetention = tombstoneRetention
    }

    /// Runs one collection unless another instance is collecting (`ran` false then): of
    /// every account, or with `account` of that account only — its expired history and
    /// tombstones, its chunks, packs and pack objects (`packs/ACCOUNT/`); nothing of any
    /// other account is read or removed, and only its `last_collected_at` is set.
    public func collect(account: Int64? = nil) async throws(SyncError) -> GarbageCollectionReport {
        let started = ContinuousClock.now
        let logger = store.logger
        var report = try await store.withConnection("collect garbage") { connection in
            let rows = try await connection.statement("SELECT pg_try_advisory_lock(\(Self.lockKey))", logger: logger)
            var locked = false
            for try await got in rows.decode(Bool.self) { locked = got }
            guard locked else { return GarbageCollectionReport() }
            do {
                var report = GarbageCollectionReport()
                report.ran = true
                try await collect(account, into: &report, connection)
                try await connection.statement("SELECT pg_advisory_unlock(\(Self.lockKey))", logger: logger)
                return report
            } catch {
                _ = try? await connection.statement("SELECT pg_advisory_unlock(\(Self.lockKey))", logger: logger)
                throw error
            }
        }
        let elapsed = (ContinuousClock.now - started).components
        report.seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        if report.ran { logger.info("collected garbage", metadata: ["report": "\(report.summary)", "account": "\(account.map(String.init) ?? "all")"]) }
        return report
    }

    /// Deletes every tombstone older than `age` seconds and expires the change tokens that
    /// could have missed them (the collection does this with `tombstoneRetention`).
    public func compactTombstones(olderThan age: TimeInterval) async throws(SyncError) {
        let cutoff = Date().timeIntervalSince1970 - age, logger = store.logger
        try await store.withConnection("compact tombstones") { connection in
            try await Self.compactTombstones(before: cutoff, of: nil, connection, logger)
        }
    }

    /// Deletes the tombstones older than `cutoff`, of `account` only when given.
    private static func compactTombstones(before cutoff: Double, of account: Int64?, _ connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.statement("""
            WITH gone AS (DELETE FROM tombstone WHERE deleted_at <= \(cutoff) AND (\(account)::bigint IS NULL OR account = \(account))
                          RETURNING account, zone, seq),
                 through AS (SELECT account, zone, max(seq) AS seq FROM gone GROUP BY account, zone)
            UPDATE zone SET compacted_through_seq = greatest(zone.compacted_through_seq, through.seq)
            FROM through WHERE zone.account = through.account AND zone.name = through.zone
            """, logger: logger)
    }

    /// One collection of `scope` (an account), or of everything when it is nil.
    private func collect(_ scope: Int64?, into report: inout GarbageCollectionReport, _ connection: PostgresConnection) async throws {
        let logger = store.logger
        let now = Timestamp(Date())
        let retention = StoreRetention(settings: store.settings, tombstoneRetention: tombstoneRetention)
        let versionCutoff = retention.versionCutoff(now: now).nanosecondsSince1970
        let tombstoneCutoff = retention.tombstoneCutoff(now: now).date.timeIntervalSince1970
        let chunkCutoff = ScaleOutBackend.storageTime(retention.graceCutoff(now: now).date)
        report.expiredDeletedRecords = try await count(connection.statement("""
            DELETE FROM deleted_record WHERE deleted_at <= \(versionCutoff) AND (\(scope)::bigint IS NULL OR account = \(scope)) RETURNING 1
            """, logger: logger))
        report.expiredReplacedVersions = try await count(connection.statement("""
            DELETE FROM replaced_version WHERE replaced_at <= \(versionCutoff) AND (\(scope)::bigint IS NULL OR account = \(scope)) RETURNING 1
            """, logger: logger))
        try await Self.compactTombstones(before: tombstoneCutoff, of: scope, connection, logger)
        var accounts: [Int64] = []
        for try await id in try await connection.statement("""
            SELECT id FROM account WHERE \(scope)::bigint IS NULL OR id = \(scope) ORDER BY id
            """, logger: logger).decode(Int64.self) { accounts.append(id) }
        for account in accounts {
            do {
                try await sweep(account: account, olderThan: chunkCutoff, into: &report, connection)
            } catch let stop as Stop {
                report.stoppedBecause = stop.reason
                logger.error("the collection of an account stopped; nothing of it was removed", metadata: ["account": "\(account)", "reason": "\(stop.reason)"])
            }
        }
        if scope == nil { try await store.forgetIdleRateBuckets(connection) }  // no account's data
        try await compactSparsePacks(of: scope, olderThan: chunkCutoff, into: &report, connection)
        try await removeEmptyPacks(of: scope, into: &report, connection)
        try await sweepUnnamedObjects(of: scope, olderThan: chunkCutoff, into: &report, connection)
        if report.stoppedBecause == nil {
            try await connection.statement("""
                UPDATE account SET last_collected_at = extract(epoch FROM now()) WHERE \(scope)::bigint IS NULL OR id = \(scope)
                """, logger: logger)
        }
    }

    struct Stop: Error {
        let reason: String
    }

    /// What one account's marking has kept so far, the walk through manifest nodes
    /// (`ManifestWalk`: what keeps a chunk is decided there, for every store), and through
    /// which sequence value.
    struct Marking {
        var marks = Set<SHA256Digest>()
        var walk = ManifestWalk()
        var seq: Int64 = 0
    }

    /// Removes the account's chunks nothing keeps that were stored before `cutoff`; counts
    /// them into `report`, and returns the packs that held one. Throws `Stop` (nothing of the
    /// account removed) when a kept manifest node cannot be read.
    @discardableResult
    func sweep(account: Int64, olderThan cutoff: Int64, into report: inout GarbageCollectionReport, _ connection: PostgresConnection) async throws -> Set<Int64> {
        let logger = store.logger
        let backend = store.backend(account: account)
        var marking = Marking()
        for try await seq in try await connection.statement("SELECT seq FROM account WHERE id = \(account)", logger: logger).decode(Int64.self) { marking.seq = seq }
        for table in ["record", "deleted_record", "replaced_version"] {
            try await markBodies(connection.statement("SELECT body FROM \(unescaped: table) WHERE account = \(account)", logger: logger), &marking)
        }
        marking.walk.suspect(try await nodesWithinGrace(account: account, after: cutoff, connection))
        try await expand(&marking, backend)
        var candidates: [(digest: SHA256Digest, length: Int64)] = []
        for try await (bytes, length) in try await connection.statement("""
            SELECT digest, length FROM chunk WHERE account = \(account) AND stored_at < \(cutoff)
            """, logger: logger).decode((ByteBuffer, Int32).self) {
            if let digest = SHA256Digest(bytes: bytes.readableBytesView), !marking.marks.contains(digest) { candidates.append((digest, Int64(length))) }
        }
        guard !candidates.isEmpty else { return [] }
        let (removed, bytes, packs) = try await connection.transaction(logger) { connection in
            var seq: Int64 = 0
            for try await current in try await connection.statement("SELECT seq FROM account WHERE id = \(account) FOR UPDATE", logger: logger).decode(Int64.self) { seq = current }
            if seq > marking.seq {
                let after = marking.seq
                try await markBodies(connection.statement("SELECT body FROM record WHERE account = \(account) AND seq > \(after)", logger: logger), &marking)
                try await markBodies(connection.statement("SELECT body FROM deleted_record WHERE account = \(account) AND seq > \(after)", logger: logger), &marking)
                try await markBodies(connection.statement("SELECT body FROM replaced_version WHERE account = \(account) AND seq > \(after)", logger: logger), &marking)
                marking.seq = seq
            }
            marking.walk.suspect(try await nodesWithinGrace(account: account, after: cutoff, connection))
            try await expand(&marking, backend)
            let doomed = candidates.filter { !marking.marks.contains($0.digest) }.map { ByteBuffer(bytes: $0.digest.bytes) }
            var removed: (count: Int64, bytes: Int64, packs: Set<Int64>) = (0, 0, [])
            for try await (length, pack) in try await connection.statement("""
                DELETE FROM chunk WHERE account = \(account) AND digest = ANY(\(doomed)) AND stored_at < \(cutoff) RETURNING length, pack
                """, logger: logger).decode((Int32, Int64).self) {
                removed.count += 1
                removed.bytes += Int64(length)
                removed.packs.insert(pack)
            }
            try await connection.statement("""
                UPDATE account SET chunk_count = chunk_count - \(removed.count), chunk_bytes = chunk_bytes - \(removed.bytes) WHERE id = \(account)
                """, logger: logger)
            return (removed, commit: true)
        }
        report.chunksRemoved += Int(removed)
        report.chunkBytesRemoved += bytes
        return packs
    }

    /// Marks the chunks each stored body names at its top level; its manifest nodes are read later.
    private func markBodies(_ rows: PostgresRowSequence, _ marking: inout Marking) async throws {
        for try await body in rows.decode(ByteBuffer.self) {
            for ref in try marking.walk.keep(body: Data(buffer: body)) { marking.marks.insert(ref.digest) }
        }
    }

    /// The account's chunks stored within the grace period that have a manifest node's
    /// length: an upload may store a new node over old chunks and save its record later.
    private func nodesWithinGrace(account: Int64, after cutoff: Int64, _ connection: PostgresConnection) async throws -> [ChunkRef] {
        let low = Int32(ManifestMarking.nodeLengths.lowerBound), high = Int32(ManifestMarking.nodeLengths.upperBound)
        var nodes: [ChunkRef] = []
        for try await (bytes, length) in try await connection.statement("""
            SELECT digest, length FROM chunk WHERE account = \(account) AND stored_at >= \(cutoff) AND length BETWEEN \(low) AND \(high) AND (length - 4) % 36 = 0
            """, logger: store.logger).decode((ByteBuffer, Int32).self) {
            if let digest = SHA256Digest(bytes: bytes.readableBytesView) { nodes.append(ChunkRef(digest: digest, length: Int(length))) }
        }
        return nodes
    }

    /// Reads the walk's nodes level by level and marks what they list.
    private func expand(_ marking: inout Marking, _ backend: ScaleOutBackend) async throws {
        while true {
            let level = marking.walk.nextLevel()
            if level.isEmpty { return }
            let places = try await backend.places(of: Array(level.keys))
            let loaded: [SHA256Digest: Data]
            do { loaded = try await backend.read(places) } catch {
                throw Stop(reason: "manifest node or chunk \(error.digest?.shortHex ?? "?") cannot be read (\(error.message))")
            }
            let expansion: ManifestWalk.Expansion
            do { expansion = try marking.walk.expand(level, read: loaded) } catch { throw Stop(reason: error.reason) }
            for digest in expansion.missingNodes {
                store.logger.error("a kept record's manifest node is not stored; the chunks it lists cannot be told", metadata: ["node": "\(digest.shortHex)"])
            }
            for ref in expansion.marked { marking.marks.insert(ref.digest) }
        }
    }

    /// Removes the packs no chunk row names (of `account` only, when given): their rows, then their objects.
    func removeEmptyPacks(of account: Int64?, into report: inout GarbageCollectionReport, _ connection: PostgresConnection) async throws {
        var keys: [String] = []
        for try await key in try await connection.statement("""
            DELETE FROM pack WHERE (\(account)::bigint IS NULL OR pack.account = \(account))
            AND NOT EXISTS (SELECT 1 FROM chunk WHERE chunk.pack = pack.id) RETURNING object_key
            """, logger: store.logger).decode(String.self) {
            keys.append(key)
        }
        guard !keys.isEmpty else { return }
        do {
            try await store.objects.deleteObjects(keys)
        } catch {
            store.logger.warning("could not remove the objects of empty packs; the next collection sweeps them", metadata: ["error": "\(error)"])
        }
        report.packsRemoved += keys.count
    }

    /// Removes the objects under `packs/` (`packs/ACCOUNT/` with `account`, where that
    /// account's packs are written) that no pack row names, once older than the cutoff.
    private func sweepUnnamedObjects(of account: Int64?, olderThan cutoff: Int64, into report: inout GarbageCollectionReport,
                                     _ connection: PostgresConnection) async throws {
        let objects = try await store.objects.listAllObjects(prefix: account.map { "packs/\($0)/" } ?? "packs/")
        let old = objects.filter { ScaleOutBackend.storageTime($0.lastModified) < cutoff }
        guard !old.isEmpty else { return }
        var named = Set<String>()
        let keys = old.map(\.key)
        for try await key in try await connection.statement("SELECT object_key FROM pack WHERE object_key = ANY(\(keys))", logger: store.logger).decode(String.self) {
            named.insert(key)
        }
        let unnamed = keys.filter { !named.contains($0) }
        guard !unnamed.isEmpty else { return }
        try await store.objects.deleteObjects(unnamed)
        report.packsRemoved += unnamed.count
        store.logger.info("removed objects no pack names", metadata: ["objects": "\(unnamed.count)"])
    }

    private func count(_ rows: PostgresRowSequence) async throws -> Int {
        var count = 0
        for try await _ in rows { count += 1 }
        return count
    }
}
