import DocSyncCore
import Foundation

/// One stored version of a record, as every store keeps it: its change tag (none for a
/// version kept in Recently Deleted or as replaced), its sequence value and its body
/// (`CompactCoding`).
public struct StoredVersion: Sendable, Hashable {
    public var changeTag: String?
    public var seq: Int64
    public var body: Data

    public init(changeTag: String?, seq: Int64, body: Data) {
        self.changeTag = changeTag
        self.seq = seq
        self.body = body
    }

    /// The record this version holds. Throws `internalError` when the body does not decode
    /// (a damaged store).
    public func record() throws(SyncError) -> Record {
        try StoredVersion.decode(body)
    }

    /// Decodes a stored body; `internalError` when it is not a record.
    public static func decode(_ body: Data) throws(SyncError) -> Record {
        do {
            return try CompactCoding.decodeRecord(body)
        } catch {
            throw SyncError(.internalError, "a stored record cannot be decoded: \(error)")
        }
    }
}

/// A record in Recently Deleted as a store keeps it: its last version (with the sequence
/// value of its last save), when and by which device it was deleted.
public struct StoredDeletion: Sendable, Hashable {
    public var name: String
    public var version: StoredVersion
    public var deletedAt: Timestamp
    /// The deleting device, "" when the deletion named none.
    public var deletedBy: String

    public init(name: String, version: StoredVersion, deletedAt: Timestamp, deletedBy: String) {
        self.name = name
        self.version = version
        self.deletedAt = deletedAt
        self.deletedBy = deletedBy
    }
}

/// One change of a zone as `fetchChanges` reads it: a record's latest save (`body`) or its
/// deletion (`body` nil, a tombstone), at the sequence value of that change.
public struct ChangeRow: Sendable, Hashable {
    public var name: String
    public var seq: Int64
    public var body: Data?

    public init(name: String, seq: Int64, body: Data?) {
        self.name = name
        self.seq = seq
        self.body = body
    }
}

/// A zone as a store keeps it: its incarnation (new at every creation, named by every
/// token), the sequence value of its latest change, the last change whose tombstone was
/// compacted away (tokens from before it have expired), and, for a zone moved into another
/// (`StorageBackend.moveZone`), where it went.
public struct ZoneState: Sendable, Hashable {
    public var incarnation: String
    public var lastSeq: Int64
    public var compactedThrough: Int64
    /// The name of the zone this one was moved into: it is only a redirect then, holding no
    /// record, history or kept version. `nil` for a zone in use.
    public var movedTo: String?

    public init(incarnation: String, lastSeq: Int64, compactedThrough: Int64, movedTo: String? = nil) {
        self.incarnation = incarnation
        self.lastSeq = lastSeq
        self.compactedThrough = compactedThrough
        self.movedTo = movedTo
    }
}
