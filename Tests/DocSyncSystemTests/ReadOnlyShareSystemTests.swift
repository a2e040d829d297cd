import DocSyncControl
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// A read-only participant's device (SPEC §11) as real processes: its edits, new files and
/// deletions stay on it and never reach the owner; a permission change reaches it by push;
/// a change made offline against a share that became read-only meanwhile stays here too.
@Suite struct ReadOnlyShareSystemTests {
    typealias Accounts = ShareCommandSystemTests.Accounts

    func text(_ url: URL) -> String? { try? String(contentsOf: url, encoding: .utf8) }

    func names(in folder: URL) -> Set<String> {
        Set(((try? FileManager.default.subpathsOfDirectory(atPath: folder.path)) ?? []).filter { !$0.hasPrefix(".") })
    }

    @Test func aReadOnlyParticipantsChangesStayOnItsDeviceUntilTheShareBecomesReadWrite() async throws {
        let accounts = try await Accounts.start(["alice", "bob"], "docsync-share-readonly")
        let alice = try accounts.daemon("alice")
        try FileManager.default.createDirectory(at: alice.file("notes"), withIntermediateDirectories: true)
        try "alice's report\n".write(to: alice.file("report.txt"), atomically: false, encoding: .utf8)
        for number in 0 ..< 3 { try "note \(number)\n".write(to: alice.file("notes/n\(number).txt"), atomically: false, encoding: .utf8) }
        try alice.start()
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await alice.waitSettled() })
        #expect(try await alice.docsStatus(["share", "Docs", "--with", "bob", "--read-only"]).status == 0)
        let bob = try accounts.daemon("bob", ["--share", "alice/Docs"])
        try bob.start()
        #expect(await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) {
            text(bob.file("notes/n2.txt")) == "note 2\n"
        }, "the share reaches bob: \(bob.logText())")
        #expect(try await bob.waitSettled())
        let aliceBefore = names(in: alice.folder)

        // bob edits, creates and deletes (rm -rf of a folder with every file in it).
        try "bob's edit\n".write(to: bob.file("report.txt"), atomically: false, encoding: .utf8)
        try "bob's own\n".write(to: bob.file("new.txt"), atomically: false, encoding: .utf8)
        try FileManager.default.removeItem(at: bob.file("notes"))
        #expect(await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) {
            text(bob.file("report.txt")) == "alice's report\n" && text(bob.file("notes/n1.txt")) == "note 1\n"
        }, "the shared versions come back: \(bob.logText())")
        let copies = names(in: bob.folder).filter { $0.hasPrefix("report (conflict bob bob ") }
        #expect(copies.count == 1, "the edit is kept beside, naming the account and the device: \(names(in: bob.folder))")
        if let copy = copies.first { #expect(text(bob.file(copy)) == "bob's edit\n") }
        #expect(text(bob.file("new.txt")) == "bob's own\n", "the new file stays")

        let waited = try await bob.docsStatus(["wait", "--timeout", "30"])
        #expect(waited.status == 0, "what is kept here is not pending: \(waited)")
        #expect(waited.errors.contains("kept on this device") && waited.errors.contains("new.txt") && waited.errors.contains("not shared: read-only"),
                "wait names the kept items: \(waited.errors)")
        let status = try await bob.docsStatusJSON(DaemonStatus.self, [])
        #expect(status.folders.first?.held == nil, "the brake neither counted nor held bob's deletions")
        #expect(Set(status.folders.first?.problems.map(\.path) ?? []) == Set(["new.txt"] + copies), "\(String(describing: status.folders.first?.problems))")
        #expect(status.folders.first?.sharing == SharedFolderFacts(role: .participant, permission: .readOnly, ownerName: "alice", accountName: "bob"))
        let sharedItems = try await bob.docsStatusJSON([ItemStatus].self, ["query", "isShared == true AND permissions == 'readOnly' AND ownerName == 'alice'"])
        #expect(sharedItems.map(\.path).contains("report.txt"), "\(sharedItems.map(\.path))")
        #expect(sharedItems.allSatisfy { $0.role == .participant && $0.permissions == .readOnly && $0.ownerName == "alice" })
        let aliceItems = try await alice.docsStatusJSON([ItemStatus].self, ["query", "role == 'owner'"])
        #expect(aliceItems.map(\.path).contains("report.txt"), "alice's device knows she shares Docs: \(aliceItems.map(\.path))")
        #expect(bob.logText().components(separatedBy: "the share is read-only for this account: changes made here stay").count <= 4,
                "one notice per pass, not one per file")

        #expect(try await alice.waitSettled())
        #expect(names(in: alice.folder) == aliceBefore, "nothing of bob's reached alice")
        #expect(text(alice.file("report.txt")) == "alice's report\n")
        #expect(try await alice.docsStatus(["deleted"]).output.contains("nothing in Recently Deleted"), "nothing was deleted on the server")

        // alice makes the share read-write: by push, bob's device sends what it kept (the
        // conflict copy as a copy).
        #expect(try await alice.docsStatus(["share", "Docs", "--permission", "bob", "read-write"]).status == 0)
        #expect(await eventually(timeout: .seconds(30), pollEvery: .milliseconds(100)) {
            text(alice.file("new.txt")) == "bob's own\n" && copies.allSatisfy { text(alice.file($0)) == "bob's edit\n" }
        }, "what bob kept reaches alice once the share is read-write: \(bob.logText())")
        #expect(text(alice.file("report.txt")) == "alice's report\n")

        // Read-only again while bob's device is off; bob edits offline. Started again, the
        // edit stays on bob's device, nothing is lost and nothing loops.
        #expect(await bob.stop() == 0)
        #expect(try await alice.docsStatus(["share", "Docs", "--permission", "bob", "read-only"]).status == 0)
        try "bob's offline edit\n".write(to: bob.file("notes/n0.txt"), atomically: false, encoding: .utf8)
        try bob.start()
        #expect(await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) {
            text(bob.file("notes/n0.txt")) == "note 0\n"
        }, "the shared version is back: \(bob.logText())")
        let offlineCopies = names(in: bob.folder).filter { $0.hasPrefix("notes/n0 (conflict bob bob ") }
        #expect(offlineCopies.count == 1, "\(names(in: bob.folder))")
        if let copy = offlineCopies.first { #expect(text(bob.file(copy)) == "bob's offline edit\n") }
        #expect(try await bob.docsStatus(["wait", "--timeout", "30"]).status == 0)
        #expect(try await alice.waitSettled())
        #expect(text(alice.file("notes/n0.txt")) == "note 0\n")
        #expect(!names(in: alice.folder).contains { $0.hasPrefix("notes/n0 (conflict") }, "the offline edit stayed on bob's device")

        // Read-write again while bob's device is off: started again, it sends what it kept.
        #expect(await bob.stop() == 0)
        #expect(try await alice.docsStatus(["share", "Docs", "--permission", "bob", "read-write"]).status == 0)
        try bob.start()
        #expect(await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) {
            offlineCopies.allSatisfy { text(alice.file($0)) == "bob's offline edit\n" }
        }, "the kept copy reaches alice once bob's device starts: \(bob.logText())")
        #expect(text(alice.file("notes/n0.txt")) == "note 0\n", "the copy stays a copy")

        _ = await alice.stop()
        _ = await bob.stop()
        _ = try await accounts.server.stop()
    }
}
