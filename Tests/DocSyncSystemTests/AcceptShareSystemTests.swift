import DocSyncControl
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// `docs-status accept SHARE --folder PATH` against a running daemon (SPEC §11): refused
/// into a folder that is not empty, attached into an absent one at once, and attached
/// again when the daemon starts again.
@Suite struct AcceptShareSystemTests {
    typealias Accounts = ShareCommandSystemTests.Accounts
    typealias SharesReport = ShareCommandSystemTests.SharesReport

    func text(_ url: URL) -> String? { try? String(contentsOf: url, encoding: .utf8) }

    @Test func aRunningDaemonAcceptsAShareIntoAnEmptyFolderAndKeepsItAcrossARestart() async throws {
        let accounts = try await Accounts.start(["alice", "bob"], "docsync-share-accept")
        let alice = try accounts.daemon("alice")
        try "alice's plan\n".write(to: alice.file("plan.txt"), atomically: false, encoding: .utf8)
        let bob = try accounts.daemon("bob")
        for device in [alice, bob] { try device.start() }
        for device in [alice, bob] {
            #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await device.waitSettled() })
        }
        #expect(try await alice.docsStatus(["share", "Docs", "--with", "bob"]).status == 0)

        // Not empty: refused before anything is accepted.
        let private_ = accounts.base.url.appendingPathComponent("bob-private")
        try FileManager.default.createDirectory(at: private_, withIntermediateDirectories: true)
        try "bob's diary\n".write(to: private_.appendingPathComponent("diary.txt"), atomically: false, encoding: .utf8)
        let refused = try await bob.docsStatus(["accept", "alice/Docs", "--folder", private_.path])
        #expect(refused.status == 2 && refused.errors.contains("is not empty"), "\(refused)")
        let inside = try await bob.docsStatus(["accept", "alice/Docs", "--folder", bob.file("sub").path])
        #expect(inside.status == 2 && inside.errors.contains("synced folder"), "\(inside)")
        #expect(try await bob.docsStatusJSON(SharesReport.self, ["shares"]).shares.map(\.status) == [.invited], "nothing accepted")
        #expect(try await bob.docsStatus(["accept", "carol/Docs", "--folder", private_.path + "-2"]).status == 4, "never offered")

        let target = accounts.base.url.appendingPathComponent("bob-shared/Alice's Docs")
        let accepted = try await bob.docsStatus(["accept", "alice/Docs", "--folder", target.path])
        #expect(accepted.status == 0 && accepted.output.contains("alice/Docs: accepted"), "\(accepted)")
        #expect(await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) {
            text(target.appendingPathComponent("plan.txt")) == "alice's plan\n"
        }, "the share syncs at once: \(bob.logText())")
        let again = try await bob.docsStatus(["accept", "alice/Docs", "--folder", target.path + "-2"])
        #expect(again.status == 2 && again.errors.contains("attached on this device already"), "\(again)")
        try "bob's reply\n".write(to: target.appendingPathComponent("reply.txt"), atomically: false, encoding: .utf8)
        #expect(await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) {
            text(alice.file("reply.txt")) == "bob's reply\n"
        }, "bob's file reaches alice")

        // Started again, the daemon attaches the share again by itself.
        #expect(await bob.stop() == 0)
        try bob.start()
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await bob.waitSettled() })
        let status = try await bob.docsStatusJSON(DaemonStatus.self, [])
        #expect(status.folders.map(\.path).contains(target.path), "\(status.folders.map(\.path))")
        try "alice's second plan\n".write(to: alice.file("plan2.txt"), atomically: false, encoding: .utf8)
        #expect(await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) {
            text(target.appendingPathComponent("plan2.txt")) == "alice's second plan\n"
        }, "still synced after the restart: \(bob.logText())")
        #expect(!FileManager.default.fileExists(atPath: alice.file("diary.txt").path), "bob's private folder never reached alice")

        // alice removes bob: the push tells bob's device, which detaches the folder, its files kept.
        #expect(try await alice.docsStatus(["share", "Docs", "--remove", "bob"]).status == 0)
        #expect(try await eventually(timeout: .seconds(30), pollEvery: .milliseconds(100)) {
            try await bob.docsStatusJSON(DaemonStatus.self, []).folders.first { $0.path == target.path }?.state == .detached
        }, "the removal reaches bob's device by push: \(bob.logText())")
        #expect(text(target.appendingPathComponent("plan2.txt")) == "alice's second plan\n", "detached, the files stay")
        #expect(try await bob.docsStatus(["wait", "--timeout", "10"]).status == 0)

        _ = await alice.stop()
        _ = await bob.stop()
        _ = try await accounts.server.stop()
    }
}
