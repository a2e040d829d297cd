import DocSyncCore
import Foundation

/// Everything one user's store holds, as rows a migration copies to another store with
/// their sequence values, change tags and times unchanged, so that devices go on where they
/// were: the same change tags (no conflicts), the same zone incarnations and positions
/// (their change tokens stay valid), the same Recently Deleted and kept versions.
public enum StoreExport {
    public struct Zone: Sendable, Hashable {
        public var name: String
        public var incarnation: String
        public var lastSeq: Int64
        public var compactedThroughSeq: Int64
        /// For a moved zone (a redirect): the zone it was moved into.
        public var movedTo: String?
    }

    public struct RecordRow: Sendable, Hashable {
        public var zone: String
        public var recordName: String
        public var changeTag: String
        public var seq: Int64
        /// The record, `CompactCoding`.
        public var body: Data
    }

    public struct Tombstone: Sendable, Hashable {
        public var zone: String
        public var recordName: String
        public var seq: Int64
        /// Seconds since 1970.
        public var deletedAt: Double
    }

    public struct DeletedRow: Sendable, Hashable {
        public var zone: String
        public var recordName: String
        public var seq: Int64
        /// Nanoseconds since 1970.
        public var deletedAt: Int64
        public var deletedBy: String
        public var body: Data
    }

    public struct ReplacedRow: Sendable, Hashable {
        public var zone: String
        public var recordName: String
        public var seq: Int64
        /// Nanoseconds since 1970.
        public var replacedAt: Int64
        public var body: Data
    }

    /// One page of a table: its rows and where the next page starts (`nil`: the last page).
    public struct Page<Row: Sendable>: Sendable {
        public var rows: [Row]
        public var next: Int64?
    }
}
