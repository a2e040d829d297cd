import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import Foundation
import Hummingbird
import NIOCore

/// Reading what a request carries, each piece validated: every failure is a `SyncError`
/// (`invalidArguments` for what is malformed, `limitExceeded` for what is too large) that
/// says what was wrong.
enum RequestInput {
    /// The zone named by the `{zone}` path segment (percent-decoded, then validated).
    static func zone(_ context: ServerRequestContext) throws(SyncError) -> ZoneID {
        let raw = context.parameters.get("zone") ?? ""
        guard let name = raw.removingPercentEncoding else {
            throw SyncError(.invalidArguments, "the zone segment \(raw.prefix(80).debugDescription) is not valid percent-encoding")
        }
        return try ZoneID(validating: name)
    }

    /// The account named by the `{owner}` path segment (percent-decoded), or `nil` on a
    /// route without one. A name that cannot be an account's (`AccountRules`) is
    /// `invalidArguments`; a valid name no account has is not refused here: it is answered
    /// as a share that does not exist, so a caller learns nothing of which accounts exist.
    static func owner(_ context: ServerRequestContext) throws(SyncError) -> String? {
        guard let raw = context.parameters.get(ZoneGate.ownerParameter) else { return nil }
        guard let name = raw.removingPercentEncoding else {
            throw SyncError(.invalidArguments, "the owner segment \(raw.prefix(80).debugDescription) is not valid percent-encoding")
        }
        if let problem = AccountRules.problem(withUserName: name) {
            throw SyncError(.invalidArguments, "the owner \(name.prefix(80).debugDescription) \(problem), so it names no account")
        }
        return name
    }

    /// The digest named by the `{digest}` path segment: exactly 64 lowercase hex digits.
    static func digest(_ context: ServerRequestContext) throws(SyncError) -> SHA256Digest {
        let raw = context.parameters.get("digest") ?? ""
        guard raw.utf8.count == 64, raw.utf8.allSatisfy({ (48 ... 57).contains($0) || (97 ... 102).contains($0) }),
              let digest = SHA256Digest(hex: raw)
        else {
            throw SyncError(.invalidArguments, "\(raw.prefix(80).debugDescription) is not a chunk digest; write 64 lowercase hex digits")
        }
        return digest
    }

    /// The whole body, refused with `limitExceeded` beyond `limit` bytes (by its
    /// Content-Length before reading, or while reading).
    static func body(_ request: Request, limit: Int) async throws(SyncError) -> Data {
        try checkDeclaredLength(request, limit: limit)
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return Data(buffer.readableBytesView)
        } catch is NIOTooManyBytesError {
            throw SyncError(.limitExceeded, "the body is larger than the \(limit) bytes \(request.uri.path) accepts; split it")
        } catch {
            throw SyncError(.networkFailure, "reading the request body failed (\(error))")
        }
    }

    /// Refuses with `limitExceeded` a request whose Content-Length says it is over `limit`
    /// bytes, before any of its body is read.
    static func checkDeclaredLength(_ request: Request, limit: Int) throws(SyncError) {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw SyncError(.limitExceeded, "the body of \(length) bytes is larger than the \(limit) bytes \(request.uri.path) accepts; split it")
        }
    }

    /// The body decoded from JSON as `T`; a decoding failure (including an invalid zone,
    /// record name or path inside it) is `invalidArguments` naming the field.
    static func json<T: Decodable>(_ type: T.Type, _ request: Request, limit: Int) async throws(SyncError) -> T {
        let data = try await body(request, limit: limit)
        do {
            return try WireCoding.decode(T.self, from: data)
        } catch let error as DecodingError {
            throw SyncError(.invalidArguments, "the JSON body is not a valid \(T.self): \(describe(error))")
        } catch {
            throw SyncError(.invalidArguments, "the JSON body is not a valid \(T.self): \(error)")
        }
    }

    /// An integer query item in `range`, or `fallback` when absent.
    static func integer(_ request: Request, _ name: String, in range: ClosedRange<Int>, default fallback: Int) throws(SyncError) -> Int {
        guard let text = request.uri.queryParameters.get(name) else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw SyncError(.invalidArguments, "query item \(name)=\(text.prefix(40)) is not an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        }
        switch error {
        case .dataCorrupted(let context): return path(context)
        case .keyNotFound(let key, let context): return "\(path(context)) (missing key \(key.stringValue))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return path(context)
        @unknown default: return "\(error)"
        }
    }
}

/// Successful responses.
enum Responses {
    static func json(_ value: some Encodable) throws(SyncError) -> Response {
        let data: Data
        do { data = try WireCoding.encode(value) } catch {
            throw SyncError(.internalError, "cannot encode the answer (\(error))")
        }
        var headers = HTTPFields()
        headers[.contentType] = WireRoute.json
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func bytes(_ data: Data) -> Response {
        bytes(ByteBuffer(bytes: data))
    }

    static func bytes(_ buffer: ByteBuffer) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = WireRoute.octetStream
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: buffer))
    }

    static var noContent: Response { Response(status: .noContent) }
}
