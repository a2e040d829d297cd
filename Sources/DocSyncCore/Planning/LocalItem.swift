/// One item as the local index knows it, as the planner sees it: what the server last
/// acknowledged for it, what is on this device now, and whether a change of it waits to be
/// sent. A value: the executor reads it from the index (after looking at the disk) and
/// hands it to the planner.
public struct LocalItem: Sendable, Hashable {
    /// What waits to be sent for the item.
    public enum Change: Sendable, Hashable {
        /// Nothing: the item is as the server acknowledged it (or as it was placed here).
        case none
        /// Created or changed here, not yet acknowledged.
        case edited
        /// Deleted here, the deletion not yet sent.
        case deleted
    }

    public var recordName: String
    public var change: Change
    /// Shown as a placeholder (an on-demand document whose content is not here).
    public var isPlaceholder: Bool
    /// The last record the server acknowledged for this item; `nil` when it never did.
    public var ancestor: Record?
    /// The item as it is here now, shaped as the record it would send (for a deleted item:
    /// as it was last seen). Its content digest is known (the file was read).
    public var observed: Record
    /// The item's only change is the engine's own move: aside to a conflict name when
    /// another item took its path, or along with a folder a remote change moved. Nobody
    /// edited it, so a deletion made elsewhere wins.
    public var onlyMovedByEngine: Bool

    public init(recordName: String, change: Change, isPlaceholder: Bool = false, ancestor: Record?, observed: Record, onlyMovedByEngine: Bool = false) {
        self.recordName = recordName
        self.change = change
        self.isPlaceholder = isPlaceholder
        self.ancestor = ancestor
        self.observed = observed
        self.onlyMovedByEngine = onlyMovedByEngine
    }

    public var path: RelativePath { observed.path }
    public var type: RecordType { observed.type }
}
