import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// What an operator's tools read from a real `docsync-server` process, without a token:
/// health, readiness and Prometheus metrics.
@Suite struct OperationsRoutesTests {
    @Test func healthReadinessAndMetricsAnswerWithoutAToken() async throws {
        let server = try await TestServer()
        #expect(try await RawHTTP.send(.GET, server.url, "/healthz", token: nil).status == 200)
        #expect(try await RawHTTP.send(.GET, server.url, "/readyz", token: nil).status == 200)

        let token = try await server.process.addUser("ana")
        let backend = try HTTPBackend(url: server.url, token: token)
        try await backend.createZone(ZoneID("Docs"))
        _ = try await backend.save(TestRecords.folder(ZoneID("Docs"), "a"))
        #expect(try await RawHTTP.send(.GET, server.url, "/v1/zones", token: "wrong").status == 401)

        let metrics = try await RawHTTP.send(.GET, server.url, "/metrics", token: nil)
        #expect(metrics.status == 200)
        let text = String(decoding: metrics.body, as: UTF8.self)
        // Requests by route and status, with a latency histogram.
        #expect(text.contains(#"hb_requests{http_route="/v1/zones/{zone}/modify",http_request_method="POST",http_response_status_code="200"} 1"#), "\(text)")
        #expect(text.contains(#"http_server_request_duration_bucket{http_route="/v1/zones/{zone}/modify""#), "a latency histogram")
        #expect(text.contains(#"http_response_status_code="401""#))
        #expect(text.contains(#"docsync_errors_total{code="notAuthenticated"} 1"#))
        #expect(Self.value(of: "docsync_request_bytes_total", in: text).map { $0 > 0 } == true)
        #expect(Self.value(of: "docsync_response_bytes_total", in: text).map { $0 > 0 } == true)
        #expect(!text.contains("ana"), "nothing names a user")
    }

    @Test func anOpenNotificationStreamIsCounted() async throws {
        let server = try await TestServer()
        let token = try await server.process.addUser("ana")
        let backend = try HTTPBackend(url: server.url, token: token)
        try await backend.createZone(ZoneID("Docs"))
        let notifications = backend.changeNotifications()
        let listening = Task { for await _ in notifications {} }
        defer { listening.cancel() }
        let counted = await eventually(timeout: .seconds(60)) {
            let text = (try? await RawHTTP.send(.GET, server.url, "/metrics", token: nil)).map { String(decoding: $0.body, as: UTF8.self) } ?? ""
            return Self.value(of: "docsync_push_streams_open", in: text) == 1
        }
        #expect(counted, "one stream is open")
    }

    /// The value of the unlabelled sample `name` in a Prometheus exposition.
    static func value(of name: String, in text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }
}
