/// One part of a multipart upload as the store acknowledged it: its number (1…10,000) and
/// the ETag it answered, both of which completing the upload needs.
public struct S3UploadedPart: Sendable, Hashable {
    public let partNumber: Int
    public let eTag: String

    public init(partNumber: Int, eTag: String) {
        self.partNumber = partNumber
        self.eTag = eTag
    }
}
