import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// Two devices (daemon processes) on two folders sharing one backend: a `file://` backend
/// of their own, or a `docsync-server`.
final class DevicePair: Sendable {
    let base: TemporaryDirectory
    /// Where the records and chunks are stored (for a server: the user's directory in its data).
    let backendDirectory: URL
    let a: DaemonProcess
    let b: DaemonProcess

    init(extraArguments: [String] = []) throws {
        base = try TemporaryDirectory("docsync-system")
        backendDirectory = base.url.appendingPathComponent("backend")
        let url = URL(fileURLWithPath: backendDirectory.path)
        a = try DaemonProcess(name: "alpha", base: base.url, backend: url, extraArguments: extraArguments)
        b = try DaemonProcess(name: "beta", base: base.url, backend: url, extraArguments: extraArguments)
    }

    /// Two devices of `user` syncing through `server`, each with a device token of its own.
    convenience init(server: ServerProcess, user: String, extraArguments: [String] = []) async throws {
        try await self.init(servers: (server, server), user: user, extraArguments: extraArguments)
    }

    /// Two devices of `user`, alpha through the first server and beta through the second
    /// (two instances of one scale-out store, or the same server twice); or both through
    /// `backend` (a load balancer in front of them) when it is given.
    init(servers: (ServerProcess, ServerProcess), user: String, extraArguments: [String] = [], backend: URL? = nil) async throws {
        base = try TemporaryDirectory("docsync-system")
        backendDirectory = servers.0.userDirectory(user)
        var devices: [DaemonProcess] = []
        for (index, name) in ["alpha", "beta"].enumerated() {
            let server = index == 0 ? servers.0 : servers.1
            let token = index == 0 ? try await server.addUser(user) : try await server.userCommand(["token", user])
            let tokenFile = base.url.appendingPathComponent("\(name).token")
            try Data((token + "\n").utf8).write(to: tokenFile)
            devices.append(try DaemonProcess(name: name, base: base.url, backend: backend ?? server.url,
                                             extraArguments: ["--token-file", tokenFile.path] + extraArguments))
        }
        a = devices[0]
        b = devices[1]
    }

    func startBoth() throws {
        try a.start()
        try b.start()
    }

    func stopBoth() async {
        await a.stop()
        await b.stop()
    }

    /// Waits until both folders hold the same tree (and `also` holds); records the
    /// difference as an issue when they do not within `timeout`.
    @discardableResult
    func converge(timeout: Duration = .seconds(60), _ what: String, also: @escaping () -> Bool = { true },
                  sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        let same = await eventually(timeout: timeout, pollEvery: .milliseconds(20)) {
            TreeSnapshot(a.folder) == TreeSnapshot(b.folder) && also()
        }
        if !same {
            let difference = TreeSnapshot(a.folder).difference(from: TreeSnapshot(b.folder))
            Issue.record("\(what): folders did not converge:\n\(difference)\n--- alpha log tail:\n\(a.logText().suffix(3000))\n--- beta log tail:\n\(b.logText().suffix(3000))",
                         sourceLocation: sourceLocation)
        }
        return same
    }

    /// The two devices, started, go through a create, an edit on the other side, a rename
    /// into a new directory with a large file beside it (then `afterRename`), a deletion,
    /// and the same file edited on both while they are stopped: after each the folders
    /// converge, and the concurrent edits leave both versions.
    func createEditRenameDeleteAndAConflict(afterRename: () async throws -> Void = {}, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try "hello\n".write(to: a.file("notes.txt"), atomically: false, encoding: .utf8)
        await converge("create", sourceLocation: sourceLocation)
        #expect(contents(b.file("notes.txt")) == "hello\n", sourceLocation: sourceLocation)

        try overwrite(b.file("notes.txt"), "edited on beta\n")
        await converge("edit on the other side", sourceLocation: sourceLocation)
        #expect(contents(a.file("notes.txt")) == "edited on beta\n", sourceLocation: sourceLocation)

        try FileManager.default.createDirectory(at: a.file("docs"), withIntermediateDirectories: false)
        try FileManager.default.moveItem(at: a.file("notes.txt"), to: a.file("docs/renamed.txt"))
        try Data((0 ..< 3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: a.file("docs/large.bin"))
        await converge("rename into a new directory, and a large file", sourceLocation: sourceLocation)
        #expect(contents(b.file("docs/renamed.txt")) == "edited on beta\n", sourceLocation: sourceLocation)
        try await afterRename()

        try FileManager.default.removeItem(at: b.file("docs/renamed.txt"))
        await converge("delete", sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: a.file("docs/renamed.txt").path), sourceLocation: sourceLocation)

        // The same file edited on both sides from one ancestor: both versions are kept.
        try "draft\n".write(to: a.file("plan.txt"), atomically: false, encoding: .utf8)
        await converge("a file to edit on both sides", sourceLocation: sourceLocation)
        #expect(try await a.waitSettled(), sourceLocation: sourceLocation)
        #expect(try await b.waitSettled(), sourceLocation: sourceLocation)
        await stopBoth()
        try overwrite(a.file("plan.txt"), "alpha's plan\n")
        try overwrite(b.file("plan.txt"), "beta's plan\n")
        try startBoth()
        await converge("concurrent edits", also: { syncedNames(self.a.folder).filter { $0.hasPrefix("plan") }.count == 2 }, sourceLocation: sourceLocation)
        let texts = Set(syncedNames(a.folder).filter { $0.hasPrefix("plan") }.compactMap { contents(a.file($0)) })
        #expect(texts == ["alpha's plan\n", "beta's plan\n"], "one file and one conflict copy, both contents present", sourceLocation: sourceLocation)
    }

    /// Every record in the backend's zone "Docs": record name → path (read as another client).
    func records() async throws -> [String: String] {
        let backend = try LocalBackend(directory: backendDirectory)
        let changes = try await backend.fetchAllChanges(in: ZoneID("Docs"), since: nil)
        return Dictionary(uniqueKeysWithValues: changes.changed.values.map { ($0.id.recordName, $0.path.string) })
    }

    /// Number of chunks stored in the backend.
    func storedChunkCount() async throws -> Int {
        try await LocalBackend(directory: backendDirectory).usage().chunkCount
    }
}

/// Runs a shell command line (for `mkdir -p … && cp -r …`, `rm -rf`, `ln -s`), failing the test on a non-zero exit.
func shell(_ command: String, in directory: URL, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let result = try await runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "cd '\(directory.path)' && \(command)"])
    #expect(result.status == 0, "`\(command)` failed: \(result.errors)", sourceLocation: sourceLocation)
}

/// Writes `text` to `url` in place (same inode), as an editor that does not rename would.
func overwrite(_ url: URL, _ text: String) throws {
    let handle = try FileHandle(forWritingTo: url)
    try handle.truncate(atOffset: 0)
    try handle.write(contentsOf: Data(text.utf8))
    try handle.close()
}

func contents(_ url: URL) -> String? {
    FileManager.default.contents(atPath: url.path).map { String(decoding: $0, as: UTF8.self) }
}
