import Foundation

/// One item in a backend's Recently Deleted (SPEC §4a), as `docs-status deleted` lists it.
public struct DeletedEntry: Codable, Sendable, Hashable {
    public var folder: String
    /// Its last path, relative to the folder's root.
    public var path: String
    public var kind: String
    public var size: Int64
    /// Its content change date when it was deleted.
    public var modified: Date
    public var deletedAt: Date
    /// The device that deleted it ("" when unknown).
    public var deletedBy: String
    /// The record's name: the item's identity, kept when it is recovered at its path.
    public var recordName: String

    public init(folder: String, path: String, kind: String, size: Int64, modified: Date, deletedAt: Date, deletedBy: String, recordName: String) {
        self.folder = folder
        self.path = path
        self.kind = kind
        self.size = size
        self.modified = modified
        self.deletedAt = deletedAt
        self.deletedBy = deletedBy
        self.recordName = recordName
    }
}

/// Which Recently Deleted items a call takes: those at or beneath `paths` (none: every
/// path), matching `predicate` (SPEC §6, with `deletedAt` and `deletedBy`), deleted at or
/// after `since` — all three when given.
public struct DeletedSelection: Codable, Sendable, Hashable {
    public var paths: [String]
    public var predicate: String?
    public var since: Date?

    public init(paths: [String] = [], predicate: String? = nil, since: Date? = nil) {
        self.paths = paths
        self.predicate = predicate
        self.since = since
    }

    /// True when nothing narrows the selection: every item.
    public var isEverything: Bool { paths.isEmpty && predicate == nil && since == nil }
}
