import DocSyncCore
import Foundation

/// What one operation of the store algorithm changes in one zone, for a persistence layer
/// to write in the transaction it read in (`StoreRows.apply`). Every store writes the same
/// rows for the same writes; the algorithm never writes otherwise.
public struct StoreWrites: Sendable {
    /// A record saved: it becomes the live version (replacing any), and its tombstone, if
    /// any, goes.
    public struct Save: Sendable {
        public var name: String
        public var changeTag: String
        public var seq: Int64
        public var body: Data
    }

    /// A record deleted: its live version goes, a tombstone at `seq` marks it (stamped with
    /// the time of the writes), and `kept` is what Recently Deleted holds of it (replacing
    /// an earlier entry of the same name), by `device` — nothing for a Value (`nil`: a
    /// key-value store keeps no Recently Deleted, SPEC §12).
    public struct Deletion: Sendable {
        public var name: String
        public var seq: Int64
        public var kept: StoredVersion?
        public var device: String
    }

    public var zone: String
    /// When the writes happen: the time replaced versions, deletions and tombstones carry.
    public var now: Timestamp
    /// The zone is created with this incarnation, its latest change at `seq`.
    public var createZone: (incarnation: String, seq: Int64)?
    /// The zone goes, with everything it holds.
    public var deleteZone = false
    /// The zone is emptied — its records, tombstones, Recently Deleted and replaced versions
    /// go — and kept as a redirect to the zone of this name (`ZoneState.movedTo`).
    public var moveTo: String?
    public var saves: [Save] = []
    public var deletions: [Deletion] = []
    /// Versions that saves replaced, to keep (as replaced at `now`) for the retention.
    public var replaced: [(name: String, version: StoredVersion)] = []
    /// Names whose Recently Deleted entries go (saved or recovered again).
    public var leaveRecentlyDeleted: [String] = []
    /// Names whose Recently Deleted entries and replaced versions go (purged).
    public var purged: [String] = []
    /// The zone's latest change after these writes; `nil`: unchanged.
    public var lastSeq: Int64?

    public init(zone: String, now: Timestamp) {
        self.zone = zone
        self.now = now
    }

    /// Whether a change reaches other clients: the zone's last change moved, or it was made,
    /// deleted or moved. Layers notify subscribers exactly then.
    public var announcesChange: Bool { lastSeq != nil || createZone != nil || deleteZone || moveTo != nil }

    /// Whether anything is written at all.
    public var isEmpty: Bool { !announcesChange && purged.isEmpty }
}
