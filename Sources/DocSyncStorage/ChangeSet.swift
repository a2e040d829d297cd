import DocSyncCore

/// One page of a zone's changes, from `StorageBackend.fetchChanges`.
///
/// Decoding is lenient per record: a changed record that does not decode or is not valid
/// (a path that escapes the folder, a NUL, a Folder with content…) does not fail the page;
/// it lands in `refused`, so one bad record sent by a server never stops a device from
/// applying the rest.
public struct ChangeSet: Hashable, Codable, Sendable {
    /// Records created or changed, in their current state, oldest change first.
    public var changed: [Record]
    /// Records deleted (tombstones).
    public var deleted: [RecordID]
    /// Where the next fetch starts. Persist it in the same transaction as the changes applied.
    public var token: ChangeToken
    /// More changes follow: fetch again with `token`.
    public var moreComing: Bool
    /// Changed records that arrived but were refused as invalid; never applied.
    public var refused: [RefusedRecord]

    public init(changed: [Record], deleted: [RecordID], token: ChangeToken, moreComing: Bool, refused: [RefusedRecord] = []) {
        self.changed = changed
        self.deleted = deleted
        self.token = token
        self.moreComing = moreComing
        self.refused = refused
    }

    private enum CodingKeys: String, CodingKey { case changed, deleted, token, moreComing, refused }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let arrivals = try container.decode([ArrivingRecord].self, forKey: .changed)
        changed = arrivals.compactMap(\.record)
        refused = arrivals.compactMap(\.refusal) + (try container.decodeIfPresent([RefusedRecord].self, forKey: .refused) ?? [])
        deleted = try container.decode([RecordID].self, forKey: .deleted)
        token = try container.decode(ChangeToken.self, forKey: .token)
        moreComing = try container.decode(Bool.self, forKey: .moreComing)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(changed, forKey: .changed)
        try container.encode(deleted, forKey: .deleted)
        try container.encode(token, forKey: .token)
        try container.encode(moreComing, forKey: .moreComing)
        if !refused.isEmpty { try container.encode(refused, forKey: .refused) }
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
