import DocSyncCore
import DocSyncHTTP
import DocSyncServer
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// The drain on SIGTERM: `/readyz` answers 503 from the signal on, while the server goes on
/// serving for the drain delay (a load balancer's checks take it out meanwhile), then it
/// closes, ending its push streams, and exits 0.
@Suite struct ServerDrainTests {
    let zone = ZoneID("Documents")

    @Test func readyzAnswers503FromSigtermUntilTheProcessExits() async throws {
        // Long enough that the checks below run inside it however loaded the machine is;
        // they take milliseconds.
        let server = try await TestServer(["--drain-delay", "6s"])
        let token = try await server.process.addUser("alice")
        let listener = try HTTPBackend(url: server.url, token: token, options: ServerProcessTests.fastReconnect)
        try await listener.createZone(zone)
        let heard = NotificationLog(listener.changeNotifications())
        #expect(await eventually(timeout: .seconds(60)) { heard.count == 1 }, "the push stream is open")
        #expect(try await RawHTTP.send(.GET, server.url, "/readyz", token: nil).status == 200)

        let process = server.process
        let started = ContinuousClock.now
        let stopping = Task { try await process.stop(signal: SIGTERM, timeout: .seconds(30)) }
        // A 503 is an answer: the process is still there when it comes.
        let draining = await eventually(timeout: .seconds(5), pollEvery: .milliseconds(20)) {
            (try? await RawHTTP.send(.GET, server.url, "/readyz", token: nil).status) == 503
        }
        #expect(draining, "/readyz answered 503 after SIGTERM, before the process exited; log:\n\(process.log)")
        #expect(try await RawHTTP.send(.GET, server.url, "/healthz", token: nil).status == 200, "/healthz answers until the exit")
        #expect(try await listener.listZones() == [zone], "requests are still served while the balancer takes the instance out")
        #expect(heard.count == 1, "the push stream stays open during the delay")

        #expect(try await stopping.value == 0, "log:\n\(process.log)")
        let took = ContinuousClock.now - started
        #expect(took >= .seconds(6), "the server served for the drain delay (it stopped after \(took))")
        #expect(process.log.contains("draining"))
        await listener.shutdown()
    }

    @Test func aSecondSignalEndsTheDelay() async throws {
        let server = try await TestServer(["--drain-delay", "300s"])
        let process = server.process
        let started = ContinuousClock.now
        let first = Task { try await process.stop(signal: SIGTERM, timeout: .seconds(400)) }
        let draining = await eventually(timeout: .seconds(30), pollEvery: .milliseconds(20)) {
            (try? await RawHTTP.send(.GET, server.url, "/readyz", token: nil).status) == 503
        }
        #expect(draining, "log:\n\(process.log)")
        #expect(try await process.stop(signal: SIGINT, timeout: .seconds(120)) == 0, "log:\n\(process.log)")
        #expect(ContinuousClock.now - started < .seconds(150), "not the 300 s delay")
        #expect(process.log.contains("a second signal"))
        _ = try await first.value
    }

    @Test func theDelayIsTheStoresDefaultUnlessGiven() throws {
        let embedded = try ServerConfiguration.load(file: nil, overrides: .init(data: "/d"))
        #expect(embedded.drainDelay == .zero, "one machine: no balancer to wait for")
        let scaleOut = try ServerConfiguration.load(file: nil, overrides: .init(records: "postgres://a@b/c", chunks: "s3://x"))
        #expect(scaleOut.drainDelay == ServerConfiguration.scaleOutDrainDelay)
        var given = ServerConfiguration.Overrides(records: "postgres://a@b/c", chunks: "s3://x")
        given.drainDelay = "0"
        #expect(try ServerConfiguration.load(file: nil, overrides: given).drainDelay == .zero)
        given.drainDelay = "1.5s"
        #expect(try ServerConfiguration.load(file: nil, overrides: given).drainDelay == .milliseconds(1500))
        for bad in ["soon", "-1s", "2h"] {
            given.drainDelay = bad
            #expect(throws: ServerConfigurationError.self, "\(bad)") { try ServerConfiguration.load(file: nil, overrides: given) }
        }
    }

    @Test func theConfigurationFileNamesTheDelayAndTheFlagWins() throws {
        let directory = try TemporaryDirectory("docsync-drain-config")
        let file = directory.url.appendingPathComponent("server.toml")
        try Data("data = \"/d\"\ndrain_delay = \"2s\"\n".utf8).write(to: file)
        #expect(try ServerConfiguration.load(file: file.path, overrides: .init()).drainDelay == .seconds(2))
        var flag = ServerConfiguration.Overrides()
        flag.drainDelay = "0"
        #expect(try ServerConfiguration.load(file: file.path, overrides: flag).drainDelay == .zero)
        try Data("data = \"/d\"\ndrain_delay = true\n".utf8).write(to: file)
        #expect(throws: ServerConfigurationError.self) { try ServerConfiguration.load(file: file.path, overrides: .init()) }
    }
}
