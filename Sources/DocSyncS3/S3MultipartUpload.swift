/// A multipart upload that was started and not yet completed or aborted: the object it will
/// become and the store's id for it. Until completed, the object does not change; parts of
/// an upload never completed or aborted stay in the store (and count against its space).
public struct S3MultipartUpload: Sendable, Hashable {
    public let key: String
    public let uploadID: String

    public init(key: String, uploadID: String) {
        self.key = key
        self.uploadID = uploadID
    }
}
