import DocSyncControl
import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// SPEC §13's malicious server between real daemons and a real docsync-server: a
/// `TamperingRelay` forwards what a device asks and rewrites what it is answered. Records
/// swapped or replayed in a page are refused per file (`docs-status errors` names the file
/// and the kind), nothing of them is written and the other files keep syncing; a device that
/// saw the account encrypted never takes it for plain; a new device's key substituted in the
/// key directory makes the approval codes differ, and the trusted device refuses the code.
/// No plaintext reaches the server (its data directory and log), nor leaves a device through
/// the relay (every request body it forwarded).
@Suite("SPEC §13: a malicious server between real daemons and docsync-server", .serialized)
struct MaliciousRelaySystemTests {
    /// A daemon of `user`'s on `accounts`' server, named `device`, talking to `relay` instead.
    static func daemon(_ accounts: ShareCommandSystemTests.Accounts, _ user: String, device: String, through relay: TamperingRelay) throws -> DaemonProcess {
        try DaemonProcess(name: device, base: accounts.base.url, backend: relay.url, extraArguments: ["--token-file", accounts.tokenFiles[user]!.path])
    }

    /// `text` written to `path` in `daemon`'s folder (its watcher sees it).
    static func write(_ daemon: DaemonProcess, _ path: String, _ text: String) throws {
        try Data(text.utf8).write(to: daemon.file(path))
    }

    static func read(_ daemon: DaemonProcess, _ path: String) -> String? {
        FileManager.default.contents(atPath: daemon.file(path).path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The problems `docs-status errors` shows (none while the daemon does not answer).
    static func problems(_ daemon: DaemonProcess) async -> [ProblemEntry] {
        guard let result = try? await daemon.docsStatus(["errors", "--json"]), result.status == 0 else { return [] }
        return (try? ControlFraming.makeDecoder().decode([ProblemEntry].self, from: Data(result.output.utf8))) ?? []
    }

    /// Every needle of `files` (and of each earlier text in `earlier`) found in the server's
    /// data directory and log, and in the request bodies `relays` forwarded.
    static func leaks(of files: [String: String], earlier: [String] = [], server data: URL, relays: [TamperingRelay]) -> [String] {
        let needles = EncryptionLeakTests.needles(of: files) + earlier.map { ("earlier text \($0.prefix(24))", Data($0.utf8).prefix(24)) }
        var found = EncryptionLeakTests.search(data, for: needles)
        for relay in relays {
            for exchange in relay.exchanges {
                found += EncryptionLeakTests.search(exchange.body, for: needles).map { "\($0) in \(exchange.method) \(exchange.target)" }
            }
        }
        return found
    }

    // MARK: pages

    @Test func recordsSwappedOrReplayedInAPageAreRefusedPerFile() async throws {
        let accounts = try await ShareCommandSystemTests.Accounts.start(["alice"], "docsync-relay-pages")
        let relay = try await TamperingRelay.start(upstream: accounts.server.url)
        let laptop = try accounts.daemon("alice", device: "laptop")
        let desk = try Self.daemon(accounts, "alice", device: "desk", through: relay)
        let (target, other) = ("otter-ledger.txt", "moss-lantern.txt")
        var files = [target: "the otter's ledger, first entry\n", other: "notes on the moss lantern\n"]
        var earlier: [String] = []
        try await EncryptionLeakTests.syncEncrypted(laptop, desk, files: files)
        // The desk uploads through the relay too.
        files["desk-heron-notes.txt"] = "the heron's notes, from the desk\n"
        try Self.write(desk, "desk-heron-notes.txt", files["desk-heron-notes.txt"]!)
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            Self.read(laptop, "desk-heron-notes.txt") == files["desk-heron-notes.txt"]
        })

        // (a) The page carrying the target's new version carries another record's blob in its place.
        relay.arm(.swapBlobs)
        earlier.append(files[target]!)
        files[target] = "the otter's ledger, second entry\n"
        try Self.write(laptop, target, files[target]!)
        var shown: [ProblemEntry] = []
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            shown = await Self.problems(desk)
            return shown.contains { $0.path == target && $0.message.contains(EncryptionError.Kind.authenticationFailed.rawValue) }
        }, "the desk shows the swapped record as a problem of \(target): \(shown); \(desk.logText().suffix(2000))")
        #expect(relay.tampered == 1)
        #expect(Self.read(desk, target) == "the otter's ledger, first entry\n", "nothing of the swapped record is written")
        #expect(Self.read(desk, other) == files[other])
        files["after-the-swap.txt"] = "written after the swap\n"
        try Self.write(laptop, "after-the-swap.txt", files["after-the-swap.txt"]!)
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            Self.read(desk, "after-the-swap.txt") == files["after-the-swap.txt"]
        }, "every other file keeps syncing")
        // A genuine version afterwards is applied (and clears the problem).
        earlier.append(files[target]!)
        files[target] = "the otter's ledger, third entry\n"
        try Self.write(laptop, target, files[target]!)
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            guard Self.read(desk, target) == files[target] else { return false }
            return await Self.problems(desk).isEmpty
        })

        // (b) The page carrying the target's next version carries its first version instead.
        relay.arm(.replayOlderVersion)
        earlier.append("the otter's ledger, fourth entry\n")
        try Self.write(laptop, target, earlier.last!)
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            shown = await Self.problems(desk)
            return shown.contains { $0.path == target && $0.message.contains(EncryptionError.Kind.rolledBack.rawValue) }
        }, "the desk shows the replayed record as a problem of \(target): \(shown); \(desk.logText().suffix(2000))")
        #expect(relay.tampered == 2)
        #expect(Self.read(desk, target) == "the otter's ledger, third entry\n", "nothing of the replayed version is written")
        files["after-the-replay.txt"] = "written after the replay\n"
        try Self.write(laptop, "after-the-replay.txt", files["after-the-replay.txt"]!)
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            Self.read(desk, "after-the-replay.txt") == files["after-the-replay.txt"]
        }, "every other file keeps syncing")
        #expect(try await desk.waitSettled(timeout: 30), "nothing loops on the refused record")
        #expect(Set(syncedNames(desk.folder)) == [target, other, "desk-heron-notes.txt", "after-the-swap.txt", "after-the-replay.txt"])

        for daemon in [laptop, desk] { _ = await daemon.stop() }
        _ = try await accounts.server.stop()
        await relay.stop()
        let found = Self.leaks(of: files, earlier: earlier, server: accounts.data.url, relays: [relay])
        #expect(found.isEmpty, "plaintext reached the server or the relay: \(found)")
        // What was searched holds the desk's upload: its chunks and its sealed record.
        #expect(relay.exchanges.contains { $0.target == WireRoute.uploadBatch && !$0.body.isEmpty })
        #expect(relay.exchanges.contains { $0.target.hasPrefix("/v1/zones/e.") && $0.target.hasSuffix("/modify") && !$0.body.isEmpty })
    }
}
