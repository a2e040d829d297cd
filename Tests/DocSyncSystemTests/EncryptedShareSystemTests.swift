import DocSyncControl
import DocSyncCore
import DocSyncHTTP
import DocSyncTestSupport
import Foundation
import Testing

/// An encrypted folder shared between accounts (SPEC §11, §13), with real daemons on
/// docsync-server: the participant shows a code, a wrong code confirms nothing, the right
/// one gives the participant the folder's keys, both sync through the opaque zone, and
/// removing a participant starts a new epoch whose keys it never gets.
@Suite struct EncryptedShareSystemTests {
    typealias Accounts = ShareCommandSystemTests.Accounts
    typealias ShareReport = ShareCommandSystemTests.ShareReport
    typealias SharesReport = ShareCommandSystemTests.SharesReport

    func text(_ url: URL) -> String? { try? String(contentsOf: url, encoding: .utf8) }

    /// The share codes `participant` shows for `share`, once its device read the owner's keys.
    static func fingerprint(of share: ShareName, on participant: DaemonProcess) async throws -> String {
        var code: String?
        let found = try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            code = try await participant.docsStatusJSON(SharesReport.self, ["shares"]).shares.first { $0.share == share }?.fingerprint
            return code != nil
        }
        #expect(found, "\(participant.name) shows a fingerprint for \(share): \(participant.logText())")
        return try #require(code)
    }

    /// The wraps alice's public store holds, by participant, as any account reads them.
    static func wraps(of share: ShareName, reading accounts: Accounts, as reader: String) async throws -> [String: Int] {
        let token = try String(contentsOf: accounts.tokenFiles[reader]!, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let client = try HTTPBackend(url: accounts.server.url, token: token, owner: share.owner)
        defer { Task { await client.shutdown() } }
        let changes = try await client.fetchChanges(in: KeyValueStoreID(KeyDirectory.publicStoreName).zone, since: nil, limit: 1_000)
        var counts: [String: Int] = [:]
        for record in changes.changed {
            guard let key = record.keyValueKey?.name, key.hasPrefix("s.\(share.zone.name)/") else { continue }
            counts[String(key.split(separator: "/")[1]), default: 0] += 1
        }
        return counts
    }

    @Test func anEncryptedFolderIsSharedOnlyWithTheAccountsConfirmedByTheirCode() async throws {
        let accounts = try await Accounts.start(["alice", "bob", "carol"], "docsync-e2ee-share")
        let (alice, bob, carol) = (try accounts.daemon("alice"), try accounts.daemon("bob"), try accounts.daemon("carol"))
        let daemons = [alice, bob, carol]
        for daemon in daemons { try daemon.start() }
        for daemon in daemons {
            #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await daemon.waitSettled() }, "\(daemon.name) started")
        }
        // alice and bob turn encryption on; carol's account stays plain for now.
        for daemon in [alice, bob] {
            #expect(try await EncryptionSystemTests.encryption(daemon, ["enable"]).state == .on)
            #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) { try await daemon.waitSettled() })
        }
        // Restarted in its encrypted zone (a moment after encryption is on), the folder answers again.
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) { try await alice.docsStatus(["share", "Docs"]).status == 0 }, "\(alice.logText())")
        try "alice's secret plan\n".write(to: alice.file("plan.txt"), atomically: false, encoding: .utf8)
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await alice.waitSettled() })

        let invitation = try await alice.docsStatus(["share", "Docs", "--with", "bob", "carol", "--json"])
        #expect(invitation.status == 0, "\(invitation)")
        let invited = try ControlFraming.makeDecoder().decode(ShareReport.self, from: Data(invitation.output.utf8))
        let share = invited.share
        #expect(share.zone.name.hasPrefix("e."), "the share names the opaque zone: \(share)")
        #expect(invited.participants.allSatisfy { $0.keys?.hasPrefix("awaiting fingerprint") == true }, "\(invited.participants)")

        // carol's account is not encrypted: no code, and alice cannot confirm her.
        let carolsView = try await carol.docsStatusJSON(SharesReport.self, ["shares"]).shares
        #expect(carolsView.first?.fingerprint == nil && carolsView.first?.keys?.contains("turn encryption on") == true, "\(carolsView)")
        let plainCarol = try await alice.docsStatus(["share", "Docs", "--with", "carol", "--fingerprint", "0000-0000-0000-0000"])
        #expect(plainCarol.status != 0 && plainCarol.errors.contains("has not turned encryption on"), "\(plainCarol)")

        // bob accepts first: his folder waits for the keys, and shows why.
        let target = accounts.base.url.appendingPathComponent("bob-shared")
        #expect(try await bob.docsStatus(["accept", share.description, "--folder", target.path]).status == 0)
        let code = try await Self.fingerprint(of: share, on: bob)
        #expect(try await eventually(timeout: .seconds(30), pollEvery: .milliseconds(200)) {
            try await bob.docsStatusJSON(DaemonStatus.self, []).folders.first { $0.path == target.path }?.state == .awaitingApproval
        }, "the share waits for its keys")
        #expect(try await bob.docsStatus(["wait", "--timeout", "5"]).status == 5, "wait says a person is needed")
        #expect(!FileManager.default.fileExists(atPath: target.appendingPathComponent("plan.txt").path))

        // A wrong code is refused and wraps nothing.
        let wrong = try await alice.docsStatus(["share", "Docs", "--with", "bob", "--fingerprint", "1234-5678-9012-3456"])
        #expect(wrong.status != 0 && wrong.errors.contains("does not match"), "\(wrong)")
        #expect(try await Self.wraps(of: share, reading: accounts, as: "carol").isEmpty, "nothing wrapped before a code matched")

        let confirmed = try await alice.docsStatusJSON(ShareReport.self, ["share", "Docs", "--with", "bob", "--fingerprint", code.replacingOccurrences(of: " ", with: "-")])
        #expect(confirmed.participants.first { $0.participant == "bob" }?.keys == "fingerprint confirmed", "\(confirmed.participants)")
        #expect(confirmed.participants.first { $0.participant == "bob" }?.status == .accepted, "the confirmation did not invite bob again")
        #expect(await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) {
            text(target.appendingPathComponent("plan.txt")) == "alice's secret plan\n"
        }, "bob's device gets the keys and decrypts the folder: \(bob.logText())")
        try "bob's reply\n".write(to: target.appendingPathComponent("reply.txt"), atomically: false, encoding: .utf8)
        #expect(await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { text(alice.file("reply.txt")) == "bob's reply\n" },
                "bob seals what he writes, and alice opens it")

        // carol turns encryption on and is confirmed too.
        #expect(try await EncryptionSystemTests.encryption(carol, ["enable"]).state == .on)
        let carolsTarget = accounts.base.url.appendingPathComponent("carol-shared")
        #expect(try await carol.docsStatus(["accept", share.description, "--folder", carolsTarget.path]).status == 0)
        let carolsCode = try await Self.fingerprint(of: share, on: carol)
        #expect(carolsCode != code)
        #expect(try await alice.docsStatus(["share", "Docs", "--with", "carol", "--fingerprint", carolsCode]).status == 0)
        #expect(await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) {
            text(carolsTarget.appendingPathComponent("reply.txt")) == "bob's reply\n"
        }, "carol reads the folder's history: \(carol.logText())")
        let before = try await Self.wraps(of: share, reading: accounts, as: "bob")
        #expect(before["bob"] == 1 && before["carol"] == 1, "one epoch wrapped for each: \(before)")

        // alice removes carol: a new epoch, wrapped for bob alone.
        #expect(try await alice.docsStatus(["share", "Docs", "--remove", "carol"]).status == 0)
        let after = try await Self.wraps(of: share, reading: accounts, as: "bob")
        #expect(after["carol"] == nil && after["bob"] == 2, "carol's wraps gone, bob has both epochs: \(after)")
        try "written after carol left\n".write(to: alice.file("after.txt"), atomically: false, encoding: .utf8)
        #expect(await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) {
            text(target.appendingPathComponent("after.txt")) == "written after carol left\n"
        }, "bob reads the new epoch: \(bob.logText())")
        #expect(text(carolsTarget.appendingPathComponent("after.txt")) == nil, "carol does not")

        // What the server keeps holds no name and no content of the folder.
        let needles = ["plan.txt", "alice's secret plan", "reply.txt", "bob's reply", "after.txt", "written after carol"].map { ($0, Data($0.utf8)) }
        #expect(EncryptionLeakTests.search(accounts.data.url, for: needles).isEmpty, "the server's files hold none of the folder's names or text")
        for daemon in daemons { _ = await daemon.stop() }
        _ = try await accounts.server.stop()
    }

    func inode(_ url: URL) -> UInt64? { (try? FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? UInt64) ?? nil }

    @Test func aFolderSharedInTheClearMovesWithItsParticipants() async throws {
        let accounts = try await Accounts.start(["alice", "bob"], "docsync-e2ee-share-move")
        let (alice, bob) = (try accounts.daemon("alice"), try accounts.daemon("bob"))
        for daemon in [alice, bob] {
            try daemon.start()
            #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await daemon.waitSettled() }, "\(daemon.name) started")
        }
        #expect(try await EncryptionSystemTests.encryption(bob, ["enable"]).state == .on, "bob's account is encrypted; alice's not yet")
        try "the shared plan, written in the clear\n".write(to: alice.file("plan.txt"), atomically: false, encoding: .utf8)
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await alice.waitSettled() })
        #expect(try await alice.docsStatus(["share", "Docs", "--with", "bob"]).status == 0)
        let target = accounts.base.url.appendingPathComponent("bob-shared")
        #expect(try await bob.docsStatus(["accept", "alice/Docs", "--folder", target.path]).status == 0)
        #expect(await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) {
            text(target.appendingPathComponent("plan.txt")) == "the shared plan, written in the clear\n"
        })
        try "bob's note\n".write(to: target.appendingPathComponent("note.txt"), atomically: false, encoding: .utf8)
        #expect(await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { text(alice.file("note.txt")) == "bob's note\n" })
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await bob.waitSettled() })
        let inodes = [inode(target.appendingPathComponent("plan.txt")), inode(target.appendingPathComponent("note.txt"))]

        // alice encrypts the shared folder: it moves, and bob is carried into the encrypted zone.
        let enabled = try await alice.docsStatus(["encryption", "enable", "--json"])
        #expect(enabled.status == 0, "a folder shared in the clear moves: \(enabled)")
        #expect(try await eventually(timeout: .seconds(90), pollEvery: .milliseconds(200)) { try await alice.waitSettled() }, "\(alice.logText())")
        let report = try await alice.docsStatusJSON(ShareReport.self, ["share", "Docs"])
        #expect(report.share.zone.name.hasPrefix("e.") && report.participants.map(\.participant) == ["bob"], "\(report)")
        #expect(report.participants.first?.status == .accepted, "bob still takes part")
        let share = report.share

        // bob's device follows the move and waits for the keys, showing the code.
        let code = try await Self.fingerprint(of: share, on: bob)
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            try await bob.docsStatusJSON(DaemonStatus.self, []).folders.first { $0.path == target.path }?.state == .awaitingApproval
        }, "\(bob.logText())")
        #expect(try await alice.docsStatus(["share", "Docs", "--with", "bob", "--fingerprint", code]).status == 0)
        #expect(try await eventually(timeout: .seconds(90), pollEvery: .milliseconds(200)) { try await bob.waitSettled() }, "\(bob.logText())")
        #expect([inode(target.appendingPathComponent("plan.txt")), inode(target.appendingPathComponent("note.txt"))] == inodes,
                "bob's files are kept, not downloaded again")
        try "after the move\n".write(to: target.appendingPathComponent("after.txt"), atomically: false, encoding: .utf8)
        #expect(await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { text(alice.file("after.txt")) == "after the move\n" },
                "bob writes into the encrypted zone: \(bob.logText())")
        let needles = ["plan.txt", "the shared plan", "note.txt", "bob's note", "after.txt", "after the move"].map { ($0, Data($0.utf8)) }
        #expect(EncryptionLeakTests.search(accounts.data.url, for: needles).isEmpty, "the server keeps nothing of the folder in the clear")
        for daemon in [alice, bob] { _ = await daemon.stop() }
        _ = try await accounts.server.stop()
    }
}
