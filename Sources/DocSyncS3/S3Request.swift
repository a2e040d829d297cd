import NIOCore
import NIOHTTP1

/// One request to the store, before signing: what `S3Client.send(_:)` turns into an HTTP
/// request. Internal, so tests can make requests the public calls never make (a wrong
/// `Content-MD5`, say).
struct S3Request: Sendable {
    /// How the request's `Content-MD5` is set when it has a body.
    enum ContentMD5: Sendable {
        /// Computed from the body (what every public call does).
        case computed
        /// This value, as given (base64 of 16 bytes, or anything, to test the store's check).
        case given(String)
        /// None.
        case omitted
    }

    var method: HTTPMethod
    /// The object, or nil for a request on the bucket itself.
    var key: String?
    var query: [(name: String, value: String)] = []
    /// Headers sent and signed besides `host`, `x-amz-date`, `x-amz-content-sha256` and
    /// `content-md5`.
    var headers: [(name: String, value: String)] = []
    var body: ByteBuffer?
    var contentMD5: ContentMD5 = .computed
    /// Overrides the client's `payloadSigning` for this request.
    var payloadSigning: S3PayloadSigning?
    /// Sent as `x-amz-content-sha256` and signed instead of what `payloadSigning` gives (to
    /// probe what the store checks).
    var payloadHash: String?
}

/// The store's answer: status, headers and the whole body.
struct S3Response: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: ByteBuffer
}
