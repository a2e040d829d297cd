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
    /// The account recovering it, where the store knows accounts (`docsync-server`): the
    /// recovered record's `lastEditorName`.
    public var editor: String?

    public init(id: RecordID, path: RelativePath? = nil, device: String, editor: String? = nil) {
        self.id = id
        self.path = path
        self.device = device
        self.editor = editor
    }
}

extension DeletedRecordRecovery {
    /// The deleted record as this recovery brings it back: at `path` when one is given, last
    /// modified by `device` and edited by `editor` (no account when `nil`), validated. Throws `invalidArguments` for a path that is not
    /// valid, or what `Record.validate()` throws.
    public func recovered(_ deleted: Record) throws(SyncError) -> Record {
        var record = deleted
        if let path {
            do { record.path = try RelativePath(validating: path.string) } catch {
                throw SyncError(.invalidArguments, "cannot recover \(id) at \(path.string.debugDescription): \(error.message)")
            }
        }
        record.lastModifiedBy = device
        record.lastEditorName = editor
        try record.validate()
        return record
    }
}

extension SyncError {
    /// `unknownItem`: `id` is not in Recently Deleted.
    public static func notRecentlyDeleted(_ id: RecordID) -> SyncError {
        SyncError(.unknownItem, "\(id) is not in Recently Deleted: it was never deleted, or was recovered, purged or kept past the retention")
    }

    /// `chunkNotFound`: a chunk of the deleted version `record` is no longer stored.
    public static func deletedChunkGone(_ record: Record, _ digest: SHA256Digest) -> SyncError {
        SyncError(.chunkNotFound, "\(record.path): chunk \(digest.shortHex) of the deleted version is no longer stored; it cannot be recovered from the backend", digest: digest)
    }
}
