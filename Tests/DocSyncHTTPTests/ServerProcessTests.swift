import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// docsync-server as a process: rate limiting, push, restarts, signals, TLS, the commands.
@Suite struct ServerProcessTests {
    let zone = ZoneID("Documents")
    static let fastReconnect = HTTPBackend.Options(reconnectInitialDelay: .milliseconds(50), reconnectMaximumDelay: .milliseconds(500))

    @Test func overTheRateLimitIs429WithRetryAfter() async throws {
        // One request every 20 seconds, bursts of one: the second request is throttled
        // however slowly the machine runs.
        let server = try await TestServer(["--rate-limit", "0.05"])
        let token = try await server.process.addUser("alice")
        #expect(try await RawHTTP.send(.GET, server.url, WireRoute.zones, token: token).status == 200)
        let answer = try await RawHTTP.send(.GET, server.url, WireRoute.zones, token: token)
        #expect(answer.status == 429)
        #expect(Int(answer.headers.first(name: "Retry-After") ?? "") ?? 0 >= 1)
        #expect(answer.error?.code == .requestRateLimited && (answer.error?.retryAfter ?? 0) > 0)

        let alice = try HTTPBackend(url: server.url, token: token)
        let error = await expectSyncError(.requestRateLimited) { try await alice.listZones() }
        #expect((error?.retryAfter ?? 0) > 0, "the client hands on how long to wait")
        // Another device of another user is not throttled by Alice's.
        let bob = try HTTPBackend(url: server.url, token: try await server.process.addUser("bob"))
        #expect(try await bob.listZones().isEmpty)
        await alice.shutdown()
        await bob.shutdown()
    }

    @Test func aChangeReachesAnotherClientAtOnce() async throws {
        let server = try await TestServer()
        let token = try await server.process.addUser("alice")
        let writer = try HTTPBackend(url: server.url, token: token)
        let listener = try HTTPBackend(url: server.url, token: token, options: Self.fastReconnect)
        try await writer.createZone(zone)
        let heard = NotificationLog(listener.changeNotifications())
        #expect(await eventually(timeout: .seconds(60)) { heard.count > 0 }, "the first event names the existing zones")
        #expect(heard.zones == [zone])

        for round in 0 ..< 3 {
            let before = heard.count
            _ = try await writer.save(TestRecords.folder(zone, "dir\(round)"))
            // From the moment the save is committed: how long the push takes (a busy machine
            // may be slow to answer the save itself, which is not what is measured here).
            let start = ContinuousClock.now
            #expect(await eventually(timeout: .seconds(5), pollEvery: .milliseconds(2)) { heard.count > before })
            let elapsed = ContinuousClock.now - start
            // Pushed, it takes milliseconds; the bound leaves room for a loaded test run (a full
            // run here once took 1.1 s), not for anything that waits on a timer.
            #expect(elapsed < .seconds(3), "round \(round): the change took \(elapsed) to arrive after its save")
        }
        await listener.shutdown()
        await writer.shutdown()
    }

    @Test func theStreamRecoversAfterTheServerIsKilledAndRestarted() async throws {
        let server = try await TestServer()
        let token = try await server.process.addUser("alice")
        let setup = try HTTPBackend(url: server.url, token: token)
        try await setup.createZone(zone)
        await setup.shutdown()
        let listener = try HTTPBackend(url: server.url, token: token, options: Self.fastReconnect)
        let heard = NotificationLog(listener.changeNotifications())
        #expect(await eventually(timeout: .seconds(60)) { heard.count == 1 }, "connected: the first event names the zone")

        let port = server.process.port
        _ = try await server.process.stop(signal: SIGKILL)
        let refused = try HTTPBackend(url: server.url, token: token)
        await expectSyncError(.networkUnavailable) { try await refused.listZones() }

        let restarted = try await ServerProcess(dataDirectory: server.process.dataDirectory, listen: "127.0.0.1:\(port)")
        #expect(await eventually(timeout: .seconds(60)) { heard.count == 2 }, "the listener reconnected")
        let writer = try HTTPBackend(url: restarted.url, token: token)
        _ = try await writer.save(TestRecords.folder(zone, "after-restart"))
        #expect(await eventually(timeout: .seconds(60)) { heard.count == 3 }, "a change after the restart arrives")
        await listener.shutdown()
        await writer.shutdown()
        await refused.shutdown()
    }

    @Test func sigtermStopsTheServerWithExitZeroEvenWithAnOpenStream() async throws {
        let server = try await TestServer()
        #expect(server.url.absoluteString.hasPrefix("http://127.0.0.1:"))
        let token = try await server.process.addUser("alice")
        let listener = try HTTPBackend(url: server.url, token: token, options: Self.fastReconnect)
        try await listener.createZone(zone)
        let heard = NotificationLog(listener.changeNotifications())
        #expect(await eventually(timeout: .seconds(60)) { heard.count == 1 }, "the stream is open")
        let status = try await server.process.stop(signal: SIGTERM, timeout: .seconds(20))
        #expect(status == 0, "log:\n\(server.process.log)")
        await listener.shutdown()
        await listener.shutdown()
        await expectSyncError(.internalError) { try await listener.listZones() }
    }

    @Test func aBackendDroppedWithoutShutdownEndsItsStreams() async throws {
        let server = try await TestServer()
        let token = try await server.process.addUser("alice")
        var backend: HTTPBackend? = try HTTPBackend(url: server.url, token: token, options: Self.fastReconnect)
        try await backend?.createZone(zone)
        let stream = try #require(backend?.changeNotifications())
        let ended = Synchronized(false)
        let heard = Synchronized(0)
        let reader = Task {
            for await _ in stream { heard.update { $0 += 1 } }
            ended.update { $0 = true }
        }
        #expect(await eventually(timeout: .seconds(60)) { heard.value == 1 })
        backend = nil
        #expect(await eventually(timeout: .seconds(60)) { ended.value }, "the stream ends with its backend")
        reader.cancel()
    }

    @Test func plainHTTPIsRefusedOffLoopback() async throws {
        let directory = try TemporaryDirectory()
        let result = try await runProcess(builtProduct("docsync-server"), ["serve", "--data", directory.path, "--listen", "0.0.0.0:0"])
        #expect(result.status == 2)
        #expect(result.output.isEmpty)
        #expect(result.errors.contains("--tls-cert"), "the error says what to do: \(result.errors)")
    }

    @Test func userCommandsPrintTokensAndNames() async throws {
        let directory = try TemporaryDirectory()
        let first = try await ServerProcess.userCommand(["add", "alice"], dataDirectory: directory.url)
        #expect(first.count == 43 && !first.contains("\n"))
        let second = try await ServerProcess.userCommand(["token", "alice"], dataDirectory: directory.url)
        #expect(second.count == 43 && second != first)
        _ = try await ServerProcess.userCommand(["add", "bob"], dataDirectory: directory.url)
        #expect(try await ServerProcess.userCommand(["list"], dataDirectory: directory.url) == "alice\t2 tokens\tno quota\nbob\t1 token\tno quota")
        let duplicate = try await runProcess(builtProduct("docsync-server"), ["user", "add", "alice", "--data", directory.path])
        #expect(duplicate.status != 0 && duplicate.output.isEmpty && duplicate.errors.contains("already exists"))
        let unknown = try await runProcess(builtProduct("docsync-server"), ["user", "token", "carol", "--data", directory.path])
        #expect(unknown.status != 0 && unknown.output.isEmpty)
    }

    /// The `openssl` command on PATH, if any.
    static let openssl: URL? = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        .split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("openssl") }
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }

    @Test(.enabled(if: openssl != nil, "openssl is not installed"))
    func oneRequestOverTLS() async throws {
        let directory = try TemporaryDirectory()
        let certificate = directory.url.appendingPathComponent("cert.pem"), key = directory.url.appendingPathComponent("key.pem")
        let made = try await runProcess(try #require(Self.openssl), [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", key.path, "-out", certificate.path,
        ])
        try #require(made.status == 0, "openssl failed: \(made.errors)")
        let server = try await ServerProcess(dataDirectory: directory.url.appendingPathComponent("data"),
                                             extraArguments: ["--tls-cert", certificate.path, "--tls-key", key.path])
        #expect(server.url.scheme == "https")
        let token = try await server.addUser("alice")
        let trusted = try HTTPBackend(url: server.url, token: token, options: .init(trustedCertificateFile: certificate))
        try await trusted.createZone(zone)
        #expect(try await trusted.listZones() == [zone])
        let untrusting = try HTTPBackend(url: server.url, token: token, options: .init(connectTimeout: .seconds(5)))
        let error = await expectSyncError(.networkFailure) { try await untrusting.listZones() }
        #expect(error?.message.contains("TLS") == true, "\(String(describing: error))")
        await trusted.shutdown()
        await untrusting.shutdown()
    }
}

/// Counts what a notification stream yields and gathers the zones it names. Each
/// (re)connection yields once for the zones that exist, so with a zone in place the count
/// also tells how many times the stream connected.
final class NotificationLog: Sendable {
    private let state = Synchronized((count: 0, zones: Set<ZoneID>()))
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<ChangeNotification>) {
        let state = self.state
        task = Task {
            for await notification in stream {
                state.update { $0.count += 1; $0.zones.formUnion(notification.zones) }
            }
        }
    }

    var count: Int { state.value.count }
    var zones: Set<ZoneID> { state.value.zones }

    deinit { task.cancel() }
}
