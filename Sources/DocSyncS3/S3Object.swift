import Foundation

/// One object of a listing: its key, size, last change and ETag as the store gave them.
public struct S3Object: Sendable, Hashable {
    public let key: String
    public let size: Int64
    public let lastModified: Date
    /// The store's ETag, quotes included (`"…"`), when it gave one.
    public let eTag: String?

    public init(key: String, size: Int64, lastModified: Date, eTag: String?) {
        self.key = key
        self.size = size
        self.lastModified = lastModified
        self.eTag = eTag
    }
}
