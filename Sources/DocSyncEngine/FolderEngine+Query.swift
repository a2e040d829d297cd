import DocSyncCore

extension FolderEngine {
    /// The live items `predicate` matches, by path (evaluated in SQLite over the index).
    public func items(matching predicate: MetadataPredicate) throws -> [ItemStatus] {
        try index.metadata(matching: predicate, sharing: sharing).map(itemStatus)
    }

    /// Grows whenever the index changes: a live query re-runs only when it has.
    public var indexVersion: Int { index.writeCount }
}
