import DocSyncCore
import Foundation

/// The narrow persistence the store algorithm (`StoreAlgorithm`) runs over: what it reads
/// of one store and the one way it writes, inside a transaction of the layer's choosing.
///
/// The embedded store (`LocalBackend`: SQLite + packs), the scale-out store (PostgreSQL +
/// S3) and the in-memory store of the simulations are layers under it: they keep rows and
/// answer these calls, and decide nothing. What only a layer can do stays the layer's and
/// is said there: the transaction itself (an IMMEDIATE SQLite transaction, a PostgreSQL
/// transaction holding the account's row lock, a lock around a value), how sequence values
/// are handed out, notifications after a commit.
///
/// Errors: any call may throw the layer's own errors; the caller maps them. The algorithm
/// throws `SyncError` only.
public protocol StoreRows {
    /// The account every change token of these rows names (the scale-out store's), or
    /// `nil` for a store of one user.
    var tokenAccount: Int64? { get }

    /// Every zone's name, with the name of the zone it was moved into (`nil` for a zone in
    /// use; a moved zone is a redirect, `ZoneState.movedTo`), in any order.
    func allZones() throws -> [(name: String, movedTo: String?)]

    /// The zone's state, `nil` when it does not exist.
    func zoneState(of zone: String) throws -> ZoneState?

    /// The live versions of `names` in `zone`, by name; names without one are absent.
    func liveVersions(_ names: [String], in zone: String) throws -> [String: StoredVersion]

    /// The Recently Deleted entries of `zone`: of `names` (`nil`: all of them), deleted at or
    /// after `since` when given. Entries of any age; the algorithm applies the retention.
    func deletedEntries(_ names: [String]?, in zone: String, since: Timestamp?) throws -> [StoredDeletion]

    /// The bodies of every version `zone` keeps — its live records, its Recently Deleted
    /// entries and the versions saves replaced — in any order: what references its chunks.
    func keptBodies(in zone: String) throws -> [Data]

    /// Which of `digests` are stored for these rows' user.
    func storedChunks(among digests: [SHA256Digest]) throws -> Set<SHA256Digest>

    /// At most `limit` changes of `zone` after the sequence value `after`, oldest first:
    /// each live record whose last save is after it, and each tombstone after it.
    func changes(in zone: String, after: Int64, limit: Int) throws -> [ChangeRow]

    /// Takes `count` values of the store's sequence (every one greater than any handed out
    /// before) and returns the first; the others follow it one by one.
    mutating func reserveSequence(_ count: Int) throws -> Int64

    /// A name no earlier incarnation of any zone of the store had.
    mutating func newIncarnation() -> String

    /// Writes `writes` (see `StoreWrites` for what each part means).
    mutating func apply(_ writes: StoreWrites) throws
}
