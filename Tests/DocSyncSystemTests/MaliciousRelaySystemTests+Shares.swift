import DocSyncControl
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// The malicious relay against an encrypted share (SPEC §13): it substitutes an account's
/// public keys, the owner's as a participant first sees them or the participant's as the
/// owner sees them. Either way the codes differ, the owner's confirmation is refused and
/// nothing is wrapped for the keys the server chose.
extension MaliciousRelaySystemTests {
    @Test func aSubstitutedAccountKeyInAShareIsRefusedByTheFingerprint() async throws {
        let accounts = try await ShareCommandSystemTests.Accounts.start(["alice", "bob", "carol"], "docsync-relay-share")
        let aliceRelay = try await TamperingRelay.start(upstream: accounts.server.url)
        let carolRelay = try await TamperingRelay.start(upstream: accounts.server.url)
        let alice = try Self.daemon(accounts, "alice", device: "alice", through: aliceRelay)
        let bob = try accounts.daemon("bob")
        let carol = try Self.daemon(accounts, "carol", device: "carol", through: carolRelay)
        let daemons = [alice, bob, carol]
        for daemon in daemons { try daemon.start() }
        for daemon in daemons {
            #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await daemon.waitSettled() }, "\(daemon.name) started")
            #expect(try await EncryptionSystemTests.encryption(daemon, ["enable"]).state == .on)
        }
        // carol's relay shows her an impostor as alice from the start: she pins the impostor.
        carolRelay.arm(.substitutePublicKeys(impostor: AccountKeys.generate()))
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) { try await alice.docsStatus(["share", "Docs"]).status == 0 })
        let secret = "the owl's ledger, kept by alice\n"
        try Self.write(alice, "owl-ledger.txt", secret)
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await alice.waitSettled() })
        let invitation = try await alice.docsStatus(["share", "Docs", "--with", "bob", "carol", "--json"])
        #expect(invitation.status == 0, "\(invitation)")
        let share = try ControlFraming.makeDecoder().decode(ShareCommandSystemTests.ShareReport.self, from: Data(invitation.output.utf8)).share
        let shelf = accounts.base.url.appendingPathComponent("bob-shelf"), carolsShelf = accounts.base.url.appendingPathComponent("carol-shelf")
        #expect(try await bob.docsStatus(["accept", share.description, "--folder", shelf.path]).status == 0)
        #expect(try await carol.docsStatus(["accept", share.description, "--folder", carolsShelf.path]).status == 0)
        let bobsCode = try await EncryptedShareSystemTests.fingerprint(of: share, on: bob)
        let carolsCode = try await EncryptedShareSystemTests.fingerprint(of: share, on: carol)

        // alice's relay shows her an impostor as bob: bob's true code does not match.
        aliceRelay.arm(.substitutePublicKeys(impostor: AccountKeys.generate()))
        let refused = try await alice.docsStatus(["share", "Docs", "--with", "bob", "--fingerprint", bobsCode])
        #expect(refused.status != 0 && refused.errors.contains("does not match"), "\(refused)")
        #expect(aliceRelay.tampered > 0, "alice read bob's keys through the relay")
        // carol pinned an impostor as alice: her code is not the one alice computes.
        let refusedCarol = try await alice.docsStatus(["share", "Docs", "--with", "carol", "--fingerprint", carolsCode])
        #expect(refusedCarol.status != 0 && refusedCarol.errors.contains("does not match"), "\(refusedCarol)")
        #expect(try await EncryptedShareSystemTests.wraps(of: share, reading: accounts, as: "bob").isEmpty, "nothing wrapped for anyone")

        // Without the relay's substitution, bob's code matches and bob reads the folder.
        aliceRelay.arm(nil)
        #expect(try await alice.docsStatus(["share", "Docs", "--with", "bob", "--fingerprint", bobsCode]).status == 0)
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) {
            (try? String(contentsOf: shelf.appendingPathComponent("owl-ledger.txt"), encoding: .utf8)) == secret
        }, "bob decrypts the folder: \(bob.logText())")
        #expect(FileManager.default.fileExists(atPath: carolsShelf.path) && !FileManager.default.fileExists(atPath: carolsShelf.appendingPathComponent("owl-ledger.txt").path),
                "carol, who pinned the impostor, gets nothing")
        let wrapped = try await EncryptedShareSystemTests.wraps(of: share, reading: accounts, as: "carol")
        #expect(wrapped == ["bob": 1], "\(wrapped)")

        // carol leaves (forgetting the keys she pinned) and is invited again past an honest
        // server: her new code matches, and the folder's keys are wrapped for her.
        carolRelay.arm(nil)
        #expect(try await carol.docsStatus(["leave", carolsShelf.path]).status == 0)
        #expect(try await alice.docsStatus(["share", "Docs", "--with", "carol"]).status == 0)
        let carolsSecondCode = try await EncryptedShareSystemTests.fingerprint(of: share, on: carol)
        #expect(carolsSecondCode != carolsCode, "read afresh: alice's real keys")
        #expect(try await alice.docsStatus(["share", "Docs", "--with", "carol", "--fingerprint", carolsSecondCode]).status == 0)
        #expect(try await EncryptedShareSystemTests.wraps(of: share, reading: accounts, as: "bob")["carol"] == 1)

        for daemon in daemons { _ = await daemon.stop() }
        _ = try await accounts.server.stop()
        for relay in [aliceRelay, carolRelay] { await relay.stop() }
    }
}
