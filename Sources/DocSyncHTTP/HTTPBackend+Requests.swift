import AsyncHTTPClient
import DocSyncCore
import DocSyncStorage
import Foundation
import NIOCore
import NIOHTTP1

/// One answered request: the status was a success and the body was read whole.
struct HTTPAnswer: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: ByteBuffer

    var data: Data { Data(body.readableBytesView) }
}

extension HTTPBackend {
    /// Sends one request and returns its successful answer, or throws the `SyncError` the
    /// server sent (or that the status or the transport failure stands for).
    ///
    /// `context` starts every error message ("upload chunk 1a2b…"); `responseLimit` bounds
    /// the body read into memory.
    func send(
        _ method: HTTPMethod, _ path: String, query: [(String, String)] = [],
        body: ByteBuffer? = nil, contentType: String? = nil, accept: String = WireRoute.json,
        responseLimit: Int = 1 << 30, context: String
    ) async throws(SyncError) -> HTTPAnswer {
        let request = try makeRequest(method, path, query: query, body: body, contentType: contentType, accept: accept, context: context)
        do {
            let response = try await client.execute(request, timeout: Self.timeAmount(options.requestTimeout))
            let bytes = try await response.body.collect(upTo: responseLimit)
            countReceived(bytes.readableBytes)
            let status = Int(response.status.code)
            if (200 ..< 300).contains(status) {
                return HTTPAnswer(status: status, headers: response.headers, body: bytes)
            }
            throw Self.error(status: status, headers: response.headers, body: bytes, context: context)
        } catch {
            throw HTTPTransportError.map(error, context, server: serverName)
        }
    }

    /// Sends a request answered with a framed chunk batch (`ChunkFraming`) and returns its
    /// chunks, in order, read frame by frame as the body arrives: the whole body is never
    /// gathered in one buffer. Errors are those of `send`, and those of `ChunkFrameReader`
    /// for a body that is not whole frames.
    func sendForChunks(
        _ method: HTTPMethod, _ path: String, body: ByteBuffer, contentType: String,
        maximumChunks: Int, responseLimit: Int, context: String
    ) async throws(SyncError) -> [ChunkUpload] {
        let request = try makeRequest(method, path, body: body, contentType: contentType, accept: WireRoute.octetStream, context: context)
        do {
            let response = try await client.execute(request, timeout: Self.timeAmount(options.requestTimeout))
            let status = Int(response.status.code)
            guard (200 ..< 300).contains(status) else {
                let bytes = try await response.body.collect(upTo: responseLimit)
                countReceived(bytes.readableBytes)
                throw Self.error(status: status, headers: response.headers, body: bytes, context: context)
            }
            var reader = ChunkFrameReader(maximumChunks: maximumChunks)
            var chunks: [ChunkUpload] = []
            var received = 0
            for try await piece in response.body {
                received += piece.readableBytes
                guard received <= responseLimit else {
                    throw SyncError(.internalError, "\(context): the server's answer is larger than \(responseLimit) bytes; is it a compatible docsync-server?")
                }
                reader.append(piece)
                while let chunk = try reader.next() { chunks.append(chunk) }
            }
            try reader.finish()
            countReceived(received)
            return chunks
        } catch {
            throw HTTPTransportError.map(error, context, server: serverName)
        }
    }

    /// A request to `path` carrying the credentials (and `body`, counted as sent). Throws
    /// `internalError` once the backend has been shut down.
    private func makeRequest(
        _ method: HTTPMethod, _ path: String, query: [(String, String)] = [],
        body: ByteBuffer?, contentType: String?, accept: String, context: String
    ) throws(SyncError) -> HTTPClientRequest {
        guard !state.withLock({ $0.isShutDown }) else {
            throw SyncError(.internalError, "\(context): this HTTP backend was shut down; open a new one")
        }
        var request = HTTPClientRequest(url: url(path, query: query))
        request.method = method
        request.headers.add(name: "Authorization", value: authorization)
        request.headers.add(name: "Accept", value: accept)
        if let body {
            request.headers.add(name: "Content-Type", value: contentType ?? WireRoute.octetStream)
            request.body = .bytes(body)
            countSent(body.readableBytes)
        }
        return request
    }

    /// Sends `value` as JSON and decodes the answer's JSON as `Answer`.
    func sendJSON<Body: Encodable, Answer: Decodable>(
        _ method: HTTPMethod, _ path: String, _ value: Body, as: Answer.Type, context: String
    ) async throws(SyncError) -> Answer {
        let answer = try await send(method, path, body: try Self.encode(value, context: context), contentType: WireRoute.json, context: context)
        return try Self.decode(Answer.self, from: answer.body, context: context)
    }

    /// Sends a request without a body and decodes the answer's JSON as `Answer`.
    func fetchJSON<Answer: Decodable>(
        _ path: String, query: [(String, String)] = [], as: Answer.Type, context: String
    ) async throws(SyncError) -> Answer {
        let answer = try await send(.GET, path, query: query, context: context)
        return try Self.decode(Answer.self, from: answer.body, context: context)
    }

    /// The URL of `path` on this backend's server: in `owner`'s shared zones when it has one,
    /// except for sharing's own routes, which are always the caller's.
    func url(_ path: String, query: [(String, String)] = []) -> String {
        var text = baseURL.absoluteString + (owner.map { owner in
            let sharing = path == WireRoute.shares || path.hasPrefix(WireRoute.shares + "/") || path.hasSuffix("/share")
            return sharing ? path : WireRoute.shared(by: owner, path)
        } ?? path)
        if !query.isEmpty {
            text += "?" + query.map { "\($0.0)=\(WireRoute.segment($0.1))" }.joined(separator: "&")
        }
        return text
    }

    static func encode(_ value: some Encodable, context: String) throws(SyncError) -> ByteBuffer {
        do {
            return ByteBuffer(bytes: try WireCoding.encode(value))
        } catch {
            throw SyncError(.invalidArguments, "\(context): cannot encode the request (\(error))")
        }
    }

    static func decode<Answer: Decodable>(_ type: Answer.Type, from body: ByteBuffer, context: String) throws(SyncError) -> Answer {
        do {
            return try WireCoding.decode(Answer.self, from: Data(body.readableBytesView))
        } catch {
            throw SyncError(.internalError,
                            "\(context): the server's answer is not the expected JSON (\(error)); is the URL a docsync-server of a compatible version?")
        }
    }

    /// The `SyncError` of an unsuccessful answer: the body's when it is one (with the
    /// `Retry-After` header filled in when the body has none), else the status's.
    static func error(status: Int, headers: HTTPHeaders, body: ByteBuffer, context: String) -> SyncError {
        let retryAfter = WireStatus.retryAfterSeconds(headers.first(name: "Retry-After"))
        let isJSON = headers.first(name: "Content-Type")?.lowercased().hasPrefix(WireRoute.json) ?? false
        if isJSON, var error = try? WireCoding.decoder.decode(SyncError.self, from: Data(body.readableBytesView)) {
            if error.retryAfter == nil { error.retryAfter = retryAfter }
            return error
        }
        return WireStatus.error(forStatus: status, retryAfter: retryAfter, context: context)
            ?? SyncError(.internalError, "\(context): status \(status) taken for an error")
    }
}
