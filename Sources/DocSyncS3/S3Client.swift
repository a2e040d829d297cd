import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// A small S3 client for one bucket: path-style requests signed with Signature Version 4,
/// over an `HTTPClient` whose connections are reused (`S3HTTPClient`: kept while idle for
/// less time than a store keeps them, at most 16 to an endpoint).
///
/// What a caller may rely on:
/// - Every call either succeeds or throws an `S3Error` whose `code` says what happened
///   (`noSuchKey`, `accessDenied`, `slowDown`, `networkFailure`, …) and whose `message` names
///   the request and the object. The client does not retry: a caller retries what
///   `isTransient` says may succeed later.
/// - Each request has to finish, answer read, within `configuration.requestTimeout`; one
///   that does not fails with `networkFailure`. (An endpoint that refuses connections fails
///   at that deadline too: the HTTP client retries connecting until then.)
/// - Every body sent carries a `Content-MD5` computed from it, which the store checks: a
///   body damaged on the way is refused, never stored.
/// - Keys are any non-empty strings up to 1024 UTF-8 bytes; they are encoded as SigV4
///   requires (`/` kept), so `a/b c+d%e` is stored as exactly that key.
/// - Calls may be made concurrently from any task (several ranges of one object at once,
///   say); the client holds no state between calls.
public final class S3Client: Sendable {
    public let configuration: S3Configuration
    let httpClient: HTTPClient
    let logger: Logger
    let signer: SigV4Signer

    /// A client of `configuration`'s bucket over `httpClient` (by default the process's
    /// client for object stores, `S3HTTPClient.shared`; one given here is not shut down by
    /// this client).
    public init(configuration: S3Configuration, httpClient: HTTPClient? = nil, logger: Logger = Logger(label: "docsync.s3")) {
        self.configuration = configuration
        self.httpClient = httpClient ?? S3HTTPClient.shared
        self.logger = logger
        self.signer = SigV4Signer(
            accessKey: configuration.accessKey,
            secretKey: configuration.secretKey,
            region: configuration.region,
            service: "s3"
        )
    }

    /// `s3://bucket/key` for messages.
    func location(_ key: String?) -> String {
        key.map { "s3://\(configuration.bucket)/\($0)" } ?? "s3://\(configuration.bucket)"
    }

    static func checkKey(_ key: String, _ operation: String) throws(S3Error) {
        guard !key.isEmpty, key.utf8.count <= 1024 else {
            throw S3Error(.badRequest, "\(operation): the key \"\(key.prefix(64))\" is empty or longer than 1024 bytes; S3 keys are 1 to 1024 bytes")
        }
    }

    /// Sends `request` and returns the answer whatever its status; throws only
    /// `networkFailure` (no answer, or not in time).
    func send(_ request: S3Request) async throws(S3Error) -> S3Response {
        S3Metrics.requests(request.method.rawValue).increment()
        let what = "\(request.method.rawValue) \(location(request.key))"
        let path = S3URIEncoding.path(bucket: configuration.bucket, key: request.key)
        let query = S3URIEncoding.canonicalQuery(request.query)
        let amzDate = S3Timestamp.amzDate(Date())

        var payloadHash = SigV4Signer.emptyPayloadHash
        var signed: [(name: String, value: String)] = [
            ("host", configuration.hostHeader),
            ("x-amz-date", amzDate),
        ]
        signed.append(contentsOf: request.headers)
        if let body = request.body {
            if (request.payloadSigning ?? configuration.payloadSigning) == .signed {
                payloadHash = SigV4Signer.hex(Self.digest(SHA256.self, body))
            } else {
                payloadHash = SigV4Signer.unsignedPayload
            }
            switch request.contentMD5 {
            case .computed:
                let digest = Self.digest(Insecure.MD5.self, body)
                signed.append(("content-md5", Data(digest).base64EncodedString()))
            case .given(let value):
                signed.append(("content-md5", value))
            case .omitted:
                break
            }
        }
        if let given = request.payloadHash { payloadHash = given }
        signed.append(("x-amz-content-sha256", payloadHash))
        let signature = signer.sign(
            method: request.method.rawValue,
            canonicalURI: path,
            query: request.query,
            headers: signed,
            payloadHash: payloadHash,
            amzDate: amzDate
        )

        var http = HTTPClientRequest(url: configuration.endpoint.absoluteString + path + (query.isEmpty ? "" : "?" + query))
        http.method = request.method
        for (name, value) in signed { http.headers.add(name: name, value: value) }
        http.headers.add(name: "authorization", value: signature.authorization)
        if let body = request.body { http.body = .bytes(body) }

        let timeout = configuration.requestTimeout
        let started = ContinuousClock.now
        do {
            let response = try await httpClient.execute(http, deadline: .now() + Self.timeAmount(timeout), logger: logger)
            let status = Int(response.status.code)
            var body: ByteBuffer
            if (200..<300).contains(status) {
                body = try await response.body.collect(upTo: Int.max)
            } else {
                // An error's XML is small: read its start, and leave the rest unread.
                body = ByteBuffer()
                for try await var chunk in response.body {
                    body.writeBuffer(&chunk)
                    if body.readableBytes >= 64 << 10 { break }
                }
            }
            logger.trace("S3 request", metadata: [
                "request": "\(what)", "status": "\(status)",
                "sent": "\(request.body?.readableBytes ?? 0)", "received": "\(body.readableBytes)",
                "duration": "\(ContinuousClock.now - started)",
            ])
            return S3Response(status: status, headers: response.headers, body: body)
        } catch {
            let elapsed = ContinuousClock.now - started
            let reason: String
            if let error = error as? HTTPClientError, error == .deadlineExceeded {
                reason = "no answer within \(timeout) (requestTimeout)"
            } else if error is CancellationError {
                reason = "cancelled"
            } else {
                reason = "\(error)"
            }
            logger.debug("S3 request failed", metadata: ["request": "\(what)", "error": "\(reason)", "duration": "\(elapsed)"])
            throw S3Error(.networkFailure, "\(what): the store at \(configuration.endpoint.absoluteString) could not be reached or did not answer: \(reason); retry later")
        }
    }

    /// Sends `request` and returns its answer when its status is 2xx or one of `alsoAccepted`;
    /// throws the error any other answer stands for.
    func perform(_ request: S3Request, alsoAccepted: Set<Int> = []) async throws(S3Error) -> S3Response {
        let response = try await send(request)
        guard (200..<300).contains(response.status) || alsoAccepted.contains(response.status) else {
            throw S3Error.answer(status: response.status, body: response.body, request: "\(request.method.rawValue) \(location(request.key))")
        }
        return response
    }

    /// The digest of `body`'s readable bytes, without copying them.
    static func digest<H: HashFunction>(_ function: H.Type, _ body: ByteBuffer) -> H.Digest {
        var hasher = H()
        body.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
        return hasher.finalize()
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
