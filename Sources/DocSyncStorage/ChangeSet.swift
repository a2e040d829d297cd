import DocSyncCore

/// One page of a zone's changes, from `StorageBackend.fetchChanges`.
public struct ChangeSet: Hashable, Codable, Sendable {
    /// Records created or changed, in their current state, oldest change first.
    public var changed: [Record]
    /// Records deleted (tombstones).
    public var deleted: [RecordID]
    /// Where the next fetch starts. Persist it in the same transaction as the changes applied.
    public var token: ChangeToken
    /// More changes follow: fetch again with `token`.
    public var moreComing: Bool

    public init(changed: [Record], deleted: [RecordID], token: ChangeToken, moreComing: Bool) {
        self.changed = changed
        self.deleted = deleted
        self.token = token
        self.moreComing = moreComing
    }
}

/// Something changed in these zones: fetch their changes.
public struct ChangeNotification: Hashable, Codable, Sendable {
    public var zones: Set<ZoneID>

    public init(zones: Set<ZoneID>) { self.zones = zones }
}

/// What a user stores on a backend.
public struct StorageUsage: Hashable, Codable, Sendable {
    public var zoneCount: Int
    public var recordCount: Int
    public var chunkCount: Int
    public var chunkBytes: Int64

    public init(zoneCount: Int, recordCount: Int, chunkCount: Int, chunkBytes: Int64) {
        self.zoneCount = zoneCount
        self.recordCount = recordCount
        self.chunkCount = chunkCount
        self.chunkBytes = chunkBytes
    }
}
