import DocSyncControl
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// Two people edit one file of a read-write share apart (SPEC §4, §11): both versions are
/// kept, and the conflict copy names the account and the device, since both may call their
/// machine "laptop".
@Suite struct SharedConflictSystemTests {
    typealias Accounts = ShareCommandSystemTests.Accounts

    func text(_ url: URL) -> String? { try? String(contentsOf: url, encoding: .utf8) }

    func names(in folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test func editsApartInAReadWriteShareKeepBothAndTheCopyNamesTheAccountAndTheDevice() async throws {
        let accounts = try await Accounts.start(["alice", "bob"], "docsync-share-conflict")
        let alice = try accounts.daemon("alice", device: "laptop")
        try "first\n".write(to: alice.file("budget.bin"), atomically: false, encoding: .utf8)
        try alice.start()
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await alice.waitSettled() })
        #expect(try await alice.docsStatus(["share", "Docs", "--with", "bob"]).status == 0)
        let bob = try DaemonProcess(name: "laptop", base: accounts.base.url.appendingPathComponent("bob"), backend: accounts.server.url,
                                    extraArguments: ["--token-file", accounts.tokenFiles["bob"]!.path, "--share", "alice/Docs"])
        try bob.start()
        #expect(await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { text(bob.file("budget.bin")) == "first\n" })
        #expect(try await bob.waitSettled())

        // bob edits while his laptop is off; alice edits meanwhile; bob's comes back.
        #expect(await bob.stop() == 0)
        try "bob's numbers\n".write(to: bob.file("budget.bin"), atomically: false, encoding: .utf8)
        try "alice's numbers\n".write(to: alice.file("budget.bin"), atomically: false, encoding: .utf8)
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await alice.waitSettled() })
        try bob.start()
        let expectedCopy = { (name: String) in name.hasPrefix("budget (conflict bob laptop ") && name.hasSuffix(").bin") }
        #expect(await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) {
            names(in: alice.folder).contains(where: expectedCopy) && names(in: bob.folder) == names(in: alice.folder)
        }, "both keep both: alice \(names(in: alice.folder)), bob \(names(in: bob.folder)): \(bob.logText())")
        #expect(text(alice.file("budget.bin")) == "alice's numbers\n")
        if let copy = names(in: alice.folder).first(where: expectedCopy) { #expect(text(alice.file(copy)) == "bob's numbers\n") }

        // iCloud's lastEditorName: the account whose save each item's server version is, the
        // same on both sides, as the server named it.
        for device in [alice, bob] {
            let bobs = try await device.docsStatusJSON([ItemStatus].self, ["query", "lastEditorName == 'bob'", "--json"])
            #expect(bobs.map(\.name).allSatisfy(expectedCopy) && bobs.count == 1, "\(bobs.map(\.path))")
            let budget = try await device.docsStatusJSON([ItemStatus].self, ["ls", device.file("budget.bin").path, "--json"])
            #expect(budget.map(\.lastEditorName) == ["alice"])
        }

        _ = await alice.stop()
        _ = await bob.stop()
        _ = try await accounts.server.stop()
    }
}
