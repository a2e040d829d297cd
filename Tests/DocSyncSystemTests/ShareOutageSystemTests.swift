import DocSyncControl
import DocSyncCore
import DocSyncHTTP
import DocSyncTestSupport
import Foundation
import GRDB
import Testing

/// A share the server forgot (SPEC §11; nextcloud/server#58372: a share gone in an upgrade
/// made the client delete the folder with an unsynced file in it): the server restarted
/// with its share list emptied. The participant's folder is held — nothing deleted on its
/// disk, nothing sent into the owner's zone, nothing created in its own account — and the
/// owner's folder is untouched.
@Suite struct ShareOutageSystemTests {
    typealias Accounts = ShareCommandSystemTests.Accounts

    func text(_ url: URL) -> String? { try? String(contentsOf: url, encoding: .utf8) }

    @Test func aServerRestartedWithItsShareListEmptiedHoldsTheParticipantsFolderAndDeletesNothing() async throws {
        let accounts = try await Accounts.start(["alice", "bob"], "docsync-share-outage")
        let alice = try accounts.daemon("alice")
        for number in 0 ..< 3 { try "alice's \(number)\n".write(to: alice.file("f\(number).txt"), atomically: false, encoding: .utf8) }
        try alice.start()
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await alice.waitSettled() })
        #expect(try await alice.docsStatus(["share", "Docs", "--with", "bob"]).status == 0)
        let bob = try accounts.daemon("bob", ["--share", "alice/Docs"])
        try bob.start()
        #expect(await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) {
            text(bob.file("f2.txt")) == "alice's 2\n"
        }, "\(bob.logText())")
        #expect(try await bob.waitSettled())

        // The server stops, loses every share entry, and starts again on the same port.
        let port = accounts.server.port
        #expect(try await accounts.server.stop() == 0)
        let users = try DatabaseQueue(path: accounts.data.url.appendingPathComponent("users.sqlite").path)
        try await users.write { db in try db.execute(sql: "DELETE FROM share") }
        try users.close()
        let restarted = try await ServerProcess(dataDirectory: accounts.data.url, listen: "127.0.0.1:\(port)")

        // bob edits, creates and deletes meanwhile: held, nothing of it leaves his device.
        try "bob's edit\n".write(to: bob.file("f0.txt"), atomically: false, encoding: .utf8)
        try "bob's new\n".write(to: bob.file("new.txt"), atomically: false, encoding: .utf8)
        try FileManager.default.removeItem(at: bob.file("f1.txt"))
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            try await bob.docsStatus(["wait", "--timeout", "3"]).status == 5
        }, "bob's folder is held: \(bob.logText())")
        let held = try await bob.docsStatusJSON(DaemonStatus.self, [])
        #expect(held.folders.first?.held?.reason == HeldDeletions.shareUnavailable, "\(String(describing: held.folders.first))")
        #expect(held.folders.first?.state != .detached, "missing from the list is not ended: never detached")
        #expect(text(bob.file("f0.txt")) == "bob's edit\n" && text(bob.file("new.txt")) == "bob's new\n" && text(bob.file("f2.txt")) == "alice's 2\n",
                "nothing on bob's disk is deleted or overwritten")

        // alice's folder is as it was; bob's account holds nothing (no zone made or re-uploaded).
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await alice.waitSettled() })
        for number in 0 ..< 3 { #expect(text(alice.file("f\(number).txt")) == "alice's \(number)\n") }
        #expect(!FileManager.default.fileExists(atPath: alice.file("new.txt").path))
        #expect(try await alice.docsStatus(["deleted"]).output.contains("nothing in Recently Deleted"))
        let bobClient = try HTTPBackend(url: restarted.url, token: try String(contentsOf: accounts.tokenFiles["bob"]!, encoding: .utf8))
        #expect(try await bobClient.listZones().isEmpty, "bob's device created nothing in bob's account")
        await bobClient.shutdown()

        _ = await alice.stop()
        _ = await bob.stop()
        _ = try await restarted.stop()
    }
}
