import DocSyncCore

/// A record in a zone's Recently Deleted (SPEC §4a): its last version before the deletion,
/// and who deleted it when. Its chunks stay stored while it is listed.
public struct DeletedRecord: Hashable, Codable, Sendable {
    /// The record as it was last saved, with its last change tag.
    public var record: Record
    public var deletedAt: Timestamp
    /// The device that deleted it ("" when the deletion named none).
    public var deletedBy: String

    public init(record: Record, deletedAt: Timestamp, deletedBy: String) {
        self.record = record
        self.deletedAt = deletedAt
        self.deletedBy = deletedBy
    }
}

/// One record to bring back from Recently Deleted (`StorageBackend.recoverDeleted`).
public struct DeletedRecordRecovery: Hashable, Codable, Sendable {
    public var id: RecordID
    /// Where it comes back; `nil`: at its last path. A device chooses another path when the
    /// last one is taken (a conflict name, SPEC §4a).
    public var path: RelativePath?
    /// The device recovering it: the recovered record's `lastModifiedBy`.
    public var device: String

    public init(id: RecordID, path: RelativePath? = nil, device: String) {
        self.id = id
        self.path = path
        self.device = device
    }
}
