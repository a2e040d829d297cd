import DocSyncCore

extension FolderEngine {
    /// The live items `predicate` matches, by path (evaluated in SQLite over the index).
    public func items(matching predicate: MetadataPredicate) throws -> [ItemStatus] {
        try index.metadata(matching: predicate).map { item in
            ItemStatus(folder: configuration.zone.name, path: item.path.string, name: item.path.name, kind: item.kind.rawValue,
                       size: item.size, modified: item.modified.date, downloadingStatus: item.status.downloadingStatus,
                       isDownloading: item.status.isDownloading, percentDownloaded: item.status.percentDownloaded,
                       isUploading: item.status.isUploading, isUploaded: item.status.isUploaded,
                       percentUploaded: item.status.percentUploaded, downloadingError: item.status.downloadingError,
                       uploadingError: item.status.uploadingError, hasUnresolvedConflicts: item.status.hasUnresolvedConflicts)
        }
    }

    /// Grows whenever the index changes: a live query re-runs only when it has.
    public var indexVersion: Int { index.writeCount }
}
