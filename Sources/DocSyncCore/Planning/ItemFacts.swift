/// What the file system says about one item, in the terms the index compares: two looks at
/// the same unchanged item give equal facts.
public struct ItemFacts: Sendable, Hashable {
    public var type: RecordType
    public var size: Int64
    public var modified: Timestamp
    public var inode: UInt64
    /// Permission bits only (`0o7777`).
    public var mode: UInt32

    public init(type: RecordType, size: Int64, modified: Timestamp, inode: UInt64, mode: UInt32) {
        self.type = type
        self.size = size
        self.modified = modified
        self.inode = inode
        self.mode = mode
    }

    /// True when `other` describes the item as these facts do, unchanged: the same type,
    /// inode and mode and, except for a folder, the same size and modification time.
    public func matches(_ other: ItemFacts) -> Bool {
        guard type == other.type, inode == other.inode, mode == other.mode else { return false }
        return type == .folder || (size == other.size && modified == other.modified)
    }

    /// Whether the content may differ from `other`'s: a size or time changed (the same
    /// file renamed keeps both; a folder has no content).
    public func contentMayDiffer(from other: ItemFacts) -> Bool {
        type != .folder && !(size == other.size && modified == other.modified)
    }
}
