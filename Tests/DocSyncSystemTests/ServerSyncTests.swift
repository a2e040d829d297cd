import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// Two real daemons syncing through a real `docsync-server` process on a loopback port:
/// the HTTP backend, push notifications and authentication, end to end.
@Suite("Two daemons through docsync-server", .serialized)
struct ServerSyncTests {
    @Test func createEditRenameDeleteAndAConflictConverge() async throws {
        let data = try TemporaryDirectory("docsync-server-data")
        let server = try await ServerProcess(dataDirectory: data.url)
        let pair = try await DevicePair(server: server, user: "ana")
        try pair.startBoth()
        try await pair.createEditRenameDeleteAndAConflict(afterRename: { () async throws in
            #expect(try await pair.records().values.sorted() == ["docs", "docs/large.bin", "docs/renamed.txt"], "a rename is a record update")
        })
        #expect(try await server.stop() == 0, "SIGTERM stops the server cleanly")
    }

    @Test func daemonsReconnectAndConvergeAfterTheServerRestarts() async throws {
        let data = try TemporaryDirectory("docsync-server-data")
        let first = try await ServerProcess(dataDirectory: data.url)
        let pair = try await DevicePair(server: first, user: "ana")
        try pair.startBoth()
        try "before\n".write(to: pair.a.file("before.txt"), atomically: false, encoding: .utf8)
        await pair.converge("before the restart")

        #expect(try await first.stop() == 0)
        // Made while the server is down: queued on alpha.
        try "while down\n".write(to: pair.a.file("while-down.txt"), atomically: false, encoding: .utf8)
        let second = try await ServerProcess(dataDirectory: data.url, listen: "127.0.0.1:\(first.port)")
        await pair.converge("a change made while the server was down", also: { contents(pair.b.file("while-down.txt")) == "while down\n" })
        // Pushes flow again both ways on the new connection.
        try "after\n".write(to: pair.b.file("after.txt"), atomically: false, encoding: .utf8)
        await pair.converge(timeout: .seconds(30), "after the restart", also: { contents(pair.a.file("after.txt")) == "after\n" })
        #expect(try await second.stop() == 0)
    }

    @Test func aWrongTokenShowsNotAuthenticatedAndTouchesNothing() async throws {
        let data = try TemporaryDirectory("docsync-server-data")
        let server = try await ServerProcess(dataDirectory: data.url)
        _ = try await server.addUser("ana")
        let base = try TemporaryDirectory("docsync-system")
        let tokenFile = base.url.appendingPathComponent("token")
        try Data("not-a-token-the-server-issued\n".utf8).write(to: tokenFile)
        let daemon = try DaemonProcess(name: "intruder", base: base.url, backend: server.url,
                                       extraArguments: ["--token-file", tokenFile.path])
        try "mine\n".write(to: daemon.file("local.txt"), atomically: false, encoding: .utf8)
        let before = TreeSnapshot(daemon.folder)
        try daemon.start()
        var status: DaemonStatus?
        let refused = await eventually(timeout: .seconds(30), pollEvery: .milliseconds(100)) {
            status = try? await daemon.status()
            return status?.account == "not authenticated"
        }
        #expect(refused, "status: \(String(describing: status))\n\(daemon.logText().suffix(2000))")
        #expect(status?.folders.first?.state == .error)
        #expect(status?.folders.first?.message == FolderStatus.notAuthenticated)
        // The daemon retries (after 0.5 s, 1 s, 2 s, …) and is refused each time: status says so
        // throughout, never "signed in" while a retry is under way.
        var shown = Set<String>()
        let watchedUntil = ContinuousClock.now + .milliseconds(2500)
        while ContinuousClock.now < watchedUntil {
            if let account = (try? await daemon.status())?.account { shown.insert(account) }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(shown == ["not authenticated"])
        let human = try await runProcess(builtProduct("docs-status"), ["--socket", daemon.socket])
        #expect(human.output.contains("not authenticated"))
        #expect(TreeSnapshot(daemon.folder) == before, "nothing local is touched")
        #expect(try await LocalBackend(directory: server.userDirectory("ana")).listZones().isEmpty, "nothing reached the server")
        await daemon.stop()
    }
}
