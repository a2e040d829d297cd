/// Every failure of `S3Client`, classified so a caller can decide what to do: retry later
/// (`isTransient`), give up on one object (`noSuchKey`), or fix its configuration
/// (`accessDenied`, `noSuchBucket`, `invalidConfiguration`). `message` is for a person: it
/// names the request and the object, and says what to do where there is something to do.
public struct S3Error: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The object does not exist (404 NoSuchKey).
        case noSuchKey
        /// The bucket does not exist (404 NoSuchBucket).
        case noSuchBucket
        /// The credentials were refused or do not allow the request (403).
        case accessDenied
        /// The store asks to slow down (503 SlowDown, 429): retry later, with backoff.
        case slowDown
        /// The store failed (5xx other than SlowDown): retry later.
        case serverError
        /// The store could not be reached, or the connection broke or timed out: retry later.
        case networkFailure
        /// The store refused the request as malformed (4xx not named above), or answered
        /// something this client cannot read.
        case badRequest
        /// The endpoint, bucket, region or credentials given are not usable.
        case invalidConfiguration
    }

    public var code: Code
    public var message: String
    /// The HTTP status of the answer, when there was one.
    public var status: Int?
    /// The store's own error code (`<Code>` of its XML body), when it gave one.
    public var storeCode: String?

    public init(_ code: Code, _ message: String, status: Int? = nil, storeCode: String? = nil) {
        self.code = code
        self.message = message
        self.status = status
        self.storeCode = storeCode
    }

    /// True for what may succeed if tried again later: network failures, server errors,
    /// requests to slow down.
    public var isTransient: Bool {
        switch code {
        case .networkFailure, .serverError, .slowDown: true
        default: false
        }
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
