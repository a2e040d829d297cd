/// One page of a listing: objects in the byte order of their keys (UTF-8), and the token
/// that asks for the next page, nil on the last one.
public struct S3ObjectPage: Sendable, Hashable {
    public let objects: [S3Object]
    /// Pass it as `continuationToken` to get the next page; nil when this page is the last.
    public let nextContinuationToken: String?

    public init(objects: [S3Object], nextContinuationToken: String?) {
        self.objects = objects
        self.nextContinuationToken = nextContinuationToken
    }
}
