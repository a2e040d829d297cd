import DocSyncCore

/// One modify request: saves and deletions in one zone.
public struct RecordBatch: Hashable, Codable, Sendable {
    /// The most items (saves plus deletions) one request may carry.
    public static let maximumItems = 400

    public var zone: ZoneID
    /// Records to save, each carrying the change tag it was based on (`nil`: new record).
    public var saves: [Record]
    /// Records to delete.
    public var deletions: [RecordDeletion]
    /// All-or-nothing: apply every item or none.
    public var atomic: Bool
    /// The sender's change token for the zone, if it has one: when the sender had fetched
    /// every change before this batch, the result's `token` moves past the batch's own
    /// changes, so the sender need not fetch them back.
    public var knownToken: ChangeToken?

    public init(zone: ZoneID, saves: [Record] = [], deletions: [RecordDeletion] = [], atomic: Bool = false, knownToken: ChangeToken? = nil) {
        self.zone = zone
        self.saves = saves
        self.deletions = deletions
        self.atomic = atomic
        self.knownToken = knownToken
    }

    public var itemCount: Int { saves.count + deletions.count }

    /// This batch cut into batches of at most `maximumItems` items (saves first), each
    /// keeping `atomic`. An atomic batch split this way is atomic per piece only.
    public func split(maximumItems: Int = RecordBatch.maximumItems) -> [RecordBatch] {
        guard itemCount > maximumItems else { return [self] }
        var pieces: [RecordBatch] = []
        var current = RecordBatch(zone: zone, atomic: atomic)
        for record in saves {
            if current.itemCount == maximumItems { pieces.append(current); current = RecordBatch(zone: zone, atomic: atomic) }
            current.saves.append(record)
        }
        for deletion in deletions {
            if current.itemCount == maximumItems { pieces.append(current); current = RecordBatch(zone: zone, atomic: atomic) }
            current.deletions.append(deletion)
        }
        if current.itemCount > 0 { pieces.append(current) }
        return pieces
    }
}

/// A deletion, optionally conditional on the record still having `baseTag`.
public struct RecordDeletion: Hashable, Codable, Sendable {
    public var id: RecordID
    /// When set, the deletion fails with `serverRecordChanged` if the record has moved on.
    public var baseTag: ChangeTag?
    /// The device deleting it, kept with the record in Recently Deleted (`nil`: a backend
    /// that knows the device, such as `docsync-server` from its token, names it itself).
    public var device: String?

    public init(id: RecordID, baseTag: ChangeTag? = nil, device: String? = nil) {
        self.id = id
        self.baseTag = baseTag
        self.device = device
    }
}

/// Each item's outcome of a modify request. Every item of the batch appears in exactly
/// one of `saved`, `deleted` and `failed`.
public struct ModifyResult: Hashable, Codable, Sendable {
    /// Saved records as the backend now has them, with their new change tags.
    public var saved: [RecordID: Record]
    public var deleted: Set<RecordID>
    public var failed: [RecordID: SyncError]
    /// The zone's change token just after this batch, given only when the batch's
    /// `knownToken` was the zone's latest: the changes between the two are exactly this
    /// result's saves and deletions, so a sender that takes this token in place of
    /// `knownToken` misses nothing. `nil` otherwise (someone else changed the zone meanwhile,
    /// the batch named no token, or an atomic batch failed): fetch changes as usual.
    public var token: ChangeToken?

    public init(saved: [RecordID: Record] = [:], deleted: Set<RecordID> = [], failed: [RecordID: SyncError] = [:], token: ChangeToken? = nil) {
        self.saved = saved
        self.deleted = deleted
        self.failed = failed
        self.token = token
    }

    /// `partialFailure` carrying every item's error, or `nil` when every item succeeded.
    public var partialFailure: SyncError? {
        guard !failed.isEmpty else { return nil }
        return SyncError(.partialFailure, "\(failed.count) of \(failed.count + saved.count + deleted.count) items failed", itemErrors: failed)
    }
}
