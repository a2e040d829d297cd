import AsyncHTTPClient
import DocSyncCore
import DocSyncTestSupport
import Foundation
import NIOCore
import NIOHTTP1

/// Requests sent by hand, bypassing every check of `HTTPBackend`, to see what the server
/// itself accepts and answers.
enum RawHTTP {
    struct Answer {
        var status: Int
        var headers: HTTPHeaders
        var body: Data

        /// The body as a `SyncError`, when it is one.
        var error: SyncError? { try? WireCoding.decoder.decode(SyncError.self, from: body) }
    }

    static func send(
        _ method: HTTPMethod, _ url: URL, _ path: String, token: String?, body: Data? = nil,
        contentType: String = "application/json", headers extra: [(String, String)] = []
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: url.absoluteString + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in extra { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: contentType)
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers, body: Data(bytes.readableBytesView))
    }

    /// `value` as JSON, with `edit` applied to the JSON object first (to craft what no
    /// well-behaved encoder would write).
    static func json(_ value: some Encodable, edit: (inout [String: Any]) -> Void = { _ in }) throws -> Data {
        var object = try JSONSerialization.jsonObject(with: try WireCoding.encoder.encode(value)) as! [String: Any]
        edit(&object)
        return try JSONSerialization.data(withJSONObject: object)
    }
}

/// A docsync-server process with its own temporary data directory.
struct TestServer {
    let directory: TemporaryDirectory
    let process: ServerProcess

    init(_ arguments: [String] = [], listen: String = "127.0.0.1:0") async throws {
        directory = try TemporaryDirectory("docsync-server")
        process = try await ServerProcess(dataDirectory: directory.url.appendingPathComponent("data"), listen: listen, extraArguments: arguments)
    }

    var url: URL { process.url }
}
