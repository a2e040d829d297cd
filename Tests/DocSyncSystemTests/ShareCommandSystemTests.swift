import DocSyncControl
import DocSyncCore
import DocSyncHTTP
import DocSyncTestSupport
import Foundation
import Testing

/// `docs-status share`, `shares` and `decline` as real processes against the real daemons
/// of two accounts on one docsync-server (SPEC §11).
@Suite struct ShareCommandSystemTests {
    struct ShareReport: Decodable {
        let share: ShareName
        let participants: [ShareEntry]
    }

    struct SharesReport: Decodable {
        let shares: [ShareEntry]
    }

    func call(_ arguments: [String], on daemon: DaemonProcess) async throws -> (status: Int32, output: String, errors: String) {
        try await daemon.docsStatus(arguments)
    }

    func json<T: Decodable>(_ type: T.Type, _ arguments: [String], on daemon: DaemonProcess,
                            sourceLocation: SourceLocation = #_sourceLocation) async throws -> T {
        try await daemon.docsStatusJSON(type, arguments, sourceLocation: sourceLocation)
    }

    /// A docsync-server with a temporary data directory, the accounts `users` on it, and
    /// a token file for each in `base`.
    struct Accounts {
        let data: TemporaryDirectory
        let server: ServerProcess
        let base: TemporaryDirectory
        let tokenFiles: [String: URL]

        static func start(_ users: [String], _ name: String) async throws -> Accounts {
            let data = try TemporaryDirectory("docsync-server-data")
            let server = try await ServerProcess(dataDirectory: data.url)
            let base = try TemporaryDirectory(name)
            var tokenFiles: [String: URL] = [:]
            for user in users {
                tokenFiles[user] = base.url.appendingPathComponent("\(user).token")
                try Data((try await server.addUser(user) + "\n").utf8).write(to: tokenFiles[user]!)
            }
            return Accounts(data: data, server: server, base: base, tokenFiles: tokenFiles)
        }

        /// A daemon of `user`'s (named `device`), with `arguments` added.
        func daemon(_ user: String, device: String? = nil, _ arguments: [String] = []) throws -> DaemonProcess {
            try DaemonProcess(name: device ?? user, base: base.url, backend: server.url,
                              extraArguments: ["--token-file", tokenFiles[user]!.path] + arguments)
        }
    }

    @Test func anOwnerInvitesAndTheInvitedDeclines() async throws {
        let accounts = try await Accounts.start(["alice", "bob"], "docsync-share-cli")
        let server = accounts.server
        let (alice, bob) = (try accounts.daemon("alice"), try accounts.daemon("bob"))
        let daemons = [alice, bob]
        try alice.start()
        try bob.start()
        for daemon in daemons {
            #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await daemon.waitSettled() }, "\(daemon.name) started")
        }
        let share = "alice/Docs"

        let empty = try await call(["share", alice.folder.path], on: alice)
        #expect(empty.status == 0 && empty.output.contains("is not shared"), "\(empty)")
        let invited = try await call(["share", alice.folder.path, "--with", "bob", "--read-only"], on: alice)
        #expect(invited.status == 0, "\(invited.errors)")
        #expect(invited.output.contains("bob") && invited.output.contains("read-only") && invited.output.contains("invited"), "\(invited.output)")

        let offered = try await json(SharesReport.self, ["shares"], on: bob)
        #expect(offered.shares.map(\.share.description) == [share])
        #expect(offered.shares.map(\.status) == [.invited])
        #expect(offered.shares.map(\.permission) == [.readOnly])
        let listed = try await call(["shares"], on: bob)
        #expect(listed.status == 0 && listed.output.contains(share) && listed.output.contains("read-only"), "\(listed.output)")
        #expect(try await json(SharesReport.self, ["shares"], on: alice).shares.isEmpty, "alice is offered nothing")

        let declined = try await call(["decline", share], on: bob)
        #expect(declined.status == 0 && declined.output.contains("\(share): declined"), "\(declined)")
        let after = try await json(ShareReport.self, ["share", "Docs"], on: alice)
        #expect(after.share.description == share)
        #expect(after.participants.map(\.participant) == ["bob"])
        #expect(after.participants.map(\.status) == [.declined])

        // Mistakes: a change to someone not taking part, an unknown account, a share never
        // offered, options that do not go together.
        let notParticipant = try await call(["share", "Docs", "--permission", "bob", "read-write"], on: alice)
        #expect(notParticipant.status == 1 && notParticipant.errors.contains("invite them first"), "\(notParticipant)")
        let unknown = try await call(["share", "Docs", "--with", "nobody"], on: alice)
        #expect(unknown.status == 1 && unknown.errors.contains("nobody"), "\(unknown)")
        let never = try await call(["decline", "carol/Docs"], on: bob)
        #expect(never.status == 1 && never.errors.contains("no share carol/Docs"), "\(never)")
        #expect(try await call(["share", "Docs", "--with", "bob", "--stop"], on: alice).status == 2)
        #expect(try await call(["share", "Docs", "--permission", "bob", "admin"], on: alice).status == 2)
        #expect(try await call(["decline", "no-slash"], on: bob).status == 2)
        #expect(try await call(["share", "/nowhere"], on: alice).status == 4)

        _ = await alice.stop()
        _ = await bob.stop()
        _ = try await server.stop()
    }

    @Test func aParticipantsDeviceSyncsTheShareHoldsItWhileItsZoneIsGoneAndDetachesWhenItStops() async throws {
        let accounts = try await Accounts.start(["alice", "bob"], "docsync-share-attach")
        let server = accounts.server, tokenFiles = accounts.tokenFiles
        let alice = try accounts.daemon("alice")
        try "alice's figures\n".write(to: alice.file("return.txt"), atomically: false, encoding: .utf8)
        try alice.start()
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await alice.waitSettled() })
        #expect(try await call(["share", "Docs", "--with", "bob"], on: alice).status == 0)

        // A non-empty folder is refused: its files would go into alice's folder.
        let refused = try accounts.daemon("bob", device: "bobs-laptop", ["--share", "alice/Docs"])
        try "bob's private notes\n".write(to: refused.file("private.txt"), atomically: false, encoding: .utf8)
        try refused.start()
        #expect(await eventually(timeout: .seconds(30)) { !refused.isRunning }, "the daemon does not start")
        #expect(refused.logText().contains("is not empty"), "\(refused.logText())")
        #expect(await refused.stop() != 0)

        let bob = try accounts.daemon("bob", ["--share", "alice/Docs"])
        try bob.start()
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) {
            (try? String(contentsOf: bob.file("return.txt"), encoding: .utf8)) == "alice's figures\n"
        }, "the share's files reach bob's device: \(bob.logText())")
        #expect(try await json(SharesReport.self, ["shares"], on: bob).shares.map(\.status) == [.accepted], "attaching accepted it")
        try "bob's figures\n".write(to: bob.file("bob.txt"), atomically: false, encoding: .utf8)
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) {
            (try? String(contentsOf: alice.file("bob.txt"), encoding: .utf8)) == "bob's figures\n"
        }, "bob's file reaches alice")

        // alice's zone goes while bob still takes part: bob's device holds the folder, keeps
        // every file, and creates nothing (alice's own daemon is stopped first, or it would
        // upload her folder again, as an owner's device does).
        _ = await alice.stop()
        let aliceClient = try HTTPBackend(url: server.url, token: try String(contentsOf: tokenFiles["alice"]!, encoding: .utf8))
        defer { Task { await aliceClient.shutdown() } }
        try await aliceClient.deleteZone(ZoneID("Docs"))
        try "after the zone went\n".write(to: bob.file("late.txt"), atomically: false, encoding: .utf8)
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            try await call(["wait", "--timeout", "5"], on: bob).status == 5
        }, "bob's folder is held: \(bob.logText())")
        let held = try await json(DaemonStatus.self, [], on: bob)
        #expect(held.folders.first?.held?.reason == HeldDeletions.shareUnavailable)
        #expect(held.folders.first?.state == .held)

        // alice stops sharing: bob's device detaches the folder for good, its files kept.
        _ = try await aliceClient.changeShare(of: ZoneID("Docs"), .init(action: .stop))
        #expect(try await eventually(timeout: .seconds(90), pollEvery: .milliseconds(200)) {
            try await call(["wait", "--timeout", "5"], on: bob).status == 0
        }, "a detached folder has nothing pending: \(bob.logText())")
        let detached = try await json(DaemonStatus.self, [], on: bob)
        #expect(detached.folders.first?.state == .detached)
        #expect(detached.folders.first?.held == nil)
        #expect(detached.folders.first?.message?.contains("alice stopped sharing") == true, "\(String(describing: detached.folders.first?.message))")
        for name in ["return.txt", "bob.txt", "late.txt"] {
            #expect(FileManager.default.fileExists(atPath: bob.file(name).path), "\(name) is kept on bob's device")
        }
        #expect(try await aliceClient.listZones().isEmpty, "bob's device created nothing in alice's account")
        #expect(!bob.logText().contains("uploading the folder again"))

        _ = await alice.stop()
        _ = await bob.stop()
        _ = try await server.stop()
    }

    @Test func aParticipantLeavesAndADeletedRootConfirmedLeavesTooDeletingNothing() async throws {
        let accounts = try await Accounts.start(["alice", "bob", "carol"], "docsync-share-leave")
        let server = accounts.server
        let alice = try accounts.daemon("alice")
        for number in 0 ..< 3 { try "figures \(number)\n".write(to: alice.file("f\(number).txt"), atomically: false, encoding: .utf8) }
        try alice.start()
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await alice.waitSettled() })
        #expect(try await call(["share", "Docs", "--with", "bob", "carol"], on: alice).status == 0)
        var participants: [DaemonProcess] = []
        for user in ["bob", "carol"] {
            let device = try accounts.daemon(user, ["--share", "alice/Docs"])
            try device.start()
            #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) {
                FileManager.default.fileExists(atPath: device.file("f2.txt").path)
            }, "\(user) has the share: \(device.logText())")
            participants.append(device)
        }
        let (bob, carol) = (participants[0], participants[1])

        let left = try await call(["leave", "alice/Docs"], on: bob)
        #expect(left.status == 0 && left.output.contains("alice/Docs: left"), "\(left)")
        #expect(try await json(DaemonStatus.self, [], on: bob).folders.first?.state == .detached)
        let settled = try await call(["wait", "--timeout", "10"], on: bob)
        #expect(settled.status == 0, "a detached folder has nothing pending: \(settled)")
        #expect(try await call(["leave", "Docs"], on: alice).status == 4, "alice owns Docs: she stops sharing instead")

        // carol deletes the shared folder's root with everything in it (the files go first,
        // one by one, as rm -rf does): held, no piece of it sent; confirming leaves, deleting nothing.
        try FileManager.default.removeItem(at: carol.folder)
        #expect(try await eventually(timeout: .seconds(30), pollEvery: .milliseconds(100)) {
            try await call(["wait", "--timeout", "2"], on: carol).status == 5
        }, "carol's folder is held")
        let confirmed = try await call(["deletions", "--confirm"], on: carol)
        #expect(confirmed.status == 0 && confirmed.output.contains("left the share alice/Docs"), "\(confirmed)")
        #expect(try await json(DaemonStatus.self, [], on: carol).folders.first?.state == .detached)

        let share = try await json(ShareReport.self, ["share", "Docs"], on: alice)
        #expect(share.participants.map(\.status) == [.left, .left])
        #expect(try await alice.waitSettled())
        #expect(try await call(["deleted"], on: alice).output.contains("nothing in Recently Deleted"), "nothing was deleted on the server")
        for number in 0 ..< 3 {
            #expect(FileManager.default.fileExists(atPath: alice.file("f\(number).txt").path), "nothing of alice's was deleted")
            #expect(FileManager.default.fileExists(atPath: bob.file("f\(number).txt").path), "bob keeps his copy")
        }
        #expect(!FileManager.default.fileExists(atPath: carol.folder.path), "carol's folder is not made again")

        for device in [alice, bob, carol] { _ = await device.stop() }
        _ = try await server.stop()
    }
}
