/// The result of `ThreeWayMerge.merge`: what to keep, what to add beside it, what to save.
public struct MergeOutcome: Sendable, Hashable {
    /// The record to keep under the record's name: the server's record (its id and changeTag)
    /// with fields merged. Send it, based on the server's change tag, when `needsSend` is true.
    public var merged: Record
    /// keep-both only, when content changed on both sides: the local content to keep beside it
    /// as a new item — a copy of `local` with a fresh record name (passed in), changeTag nil,
    /// path = the conflict-copy name next to `merged.path`, lastModifiedBy = local device.
    /// The engine writes the local content there and sends it as a new record.
    public var conflictCopy: Record?
    /// Whose content lost and must be kept in the version store (nil when nothing was lost:
    /// no content conflict, or keep-both, where the conflict copy holds the local content).
    public var losingContent: MergeSide?
    /// True when `merged` differs from `server` in any field (so the engine must send it,
    /// based on server.changeTag). False means the server's record already is the result.
    public var needsSend: Bool

    public init(merged: Record, conflictCopy: Record? = nil, losingContent: MergeSide? = nil, needsSend: Bool) {
        self.merged = merged
        self.conflictCopy = conflictCopy
        self.losingContent = losingContent
        self.needsSend = needsSend
    }
}
