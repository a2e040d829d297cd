import DocSyncCore
import DocSyncHTTP
import DocSyncTestSupport
import Foundation
import Testing

/// `HTTPBackend.shutdown()` is prompt over TLS with a push stream open: the server goes on
/// streaming after our `close_notify` and never answers it, and closing used to wait 5 s
/// for that answer (NIOSSL's default), which made every stop of docsyncd on an https
/// backend take 5 s.
@Suite struct HTTPBackendShutdownTests {
    @Test(.enabled(if: ServerProcessTests.openssl != nil, "openssl is not installed"))
    func shutdownOverTLSWithAnOpenStreamIsPrompt() async throws {
        let directory = try TemporaryDirectory()
        let certificate = directory.url.appendingPathComponent("cert.pem"), key = directory.url.appendingPathComponent("key.pem")
        let made = try await runProcess(try #require(ServerProcessTests.openssl), [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", key.path, "-out", certificate.path,
        ])
        try #require(made.status == 0, "openssl failed: \(made.errors)")
        let server = try await ServerProcess(dataDirectory: directory.url.appendingPathComponent("data"),
                                             extraArguments: ["--tls-cert", certificate.path, "--tls-key", key.path])
        let token = try await server.addUser("alice")
        let backend = try HTTPBackend(url: server.url, token: token, options: .init(trustedCertificateFile: certificate))
        try await backend.createZone(ZoneID("Docs"))
        let heard = NotificationLog(backend.changeNotifications())
        #expect(await eventually(timeout: .seconds(60)) { heard.count == 1 }, "the push stream is open")

        let started = ContinuousClock.now
        await backend.shutdown()
        let took = ContinuousClock.now - started
        // About 0.1 s; the bound leaves room for a loaded machine, not for NIOSSL's 5 s wait.
        #expect(took < .seconds(4), "shutdown took \(took)")
        #expect(try await server.stop() == 0)
    }
}
