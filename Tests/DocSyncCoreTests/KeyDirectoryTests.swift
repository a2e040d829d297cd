import Crypto
import DocSyncCore
import Foundation
import Testing

/// The account's key directory (SPEC §13): turning encryption on, approving a device with
/// the fingerprint, recovery, folder epochs — and a server that substitutes keys.
@Suite struct KeyDirectoryTests {
    let laptop = EncryptionKeyPair()
    let desktop = EncryptionKeyPair()
    let account = AccountKeys.generate()
    let recovery = RecoveryKey()

    /// The directory after the laptop turned encryption on and the desktop announced itself.
    func enabled() throws -> KeyDirectory {
        var directory = KeyDirectory()
        directory.apply(try account.enabling(recoveryKey: recovery, device: laptop.publicKeys, name: "laptop"))
        let shown = try #require(try directory.accountPublicKeys())
        directory.apply(try AccountKeys.announcing(desktop.publicKeys, name: "desktop", to: shown))
        return directory
    }

    @Test func anAccountWithoutEncryptionIsPlain() {
        guard case .plainAccount = DeviceStanding.decide(directory: KeyDirectory(), device: laptop, held: nil, pinned: nil) else {
            Issue.record("an empty directory is a plain account"); return
        }
    }

    @Test func aNewDeviceWaitsForApprovalWithTheCodeBothSidesCompute() throws {
        let directory = try enabled()
        guard case let .awaitingApproval(shown, code) = DeviceStanding.decide(directory: directory, device: desktop, held: nil, pinned: nil) else {
            Issue.record("the desktop is awaiting approval"); return
        }
        #expect(shown == account.publicKeys)
        let announcement = try #require(directory.announcements[DeviceID(desktop.publicKeys)])
        #expect(account.name(of: announcement) == "desktop", "the account's devices read the name")
        #expect(AccountKeys.generate().name(of: announcement) == nil, "no other account does")
        var approved = directory
        approved.apply(try account.approving(announcement, code: code.replacingOccurrences(of: " ", with: "-")))
        guard case let .trusted(keys) = DeviceStanding.decide(directory: approved, device: desktop, held: nil, pinned: shown) else {
            Issue.record("the approved desktop holds the account keys"); return
        }
        #expect(keys.publicKeys == account.publicKeys)
        #expect(account.trusts(DeviceID(desktop.publicKeys), in: approved))
        #expect(!account.trusts(DeviceID(desktop.publicKeys), in: directory))
    }

    @Test func aWrongFingerprintApprovesNothing() throws {
        let directory = try enabled()
        let announcement = try #require(directory.announcements[DeviceID(desktop.publicKeys)])
        #expect(throws: EncryptionError.self) { try account.approving(announcement, code: "0000 0000 0000 0000") }
    }

    @Test func aDeviceKeySubstitutedByTheServerChangesTheCodeAndIsRefused() throws {
        // The server puts its own keys in the desktop's announcement: the code the laptop
        // computes is not the one the desktop shows.
        var directory = try enabled()
        let attacker = EncryptionKeyPair()
        directory.apply(try AccountKeys.announcing(attacker.publicKeys, name: "desktop", to: account.publicKeys))
        let forged = try #require(directory.announcements[DeviceID(attacker.publicKeys)])
        let shownOnDesktop = ApprovalCode.of(account: account.publicKeys, device: desktop.publicKeys)
        #expect(throws: EncryptionError.self) { try account.approving(forged, code: shownOnDesktop) }
    }

    @Test func anAccountKeySubstitutedByTheServerIsRefusedOrChangesTheCode() throws {
        let directory = try enabled()
        let other = AccountKeys.generate()
        var forged = directory
        forged.apply(try other.enabling(recoveryKey: RecoveryKey(), device: EncryptionKeyPair().publicKeys, name: "x"))
        // A device that saw the real account keys refuses the others.
        guard case .refused = DeviceStanding.decide(directory: forged, device: desktop, held: nil, pinned: account.publicKeys) else {
            Issue.record("pinned account keys refuse a substitute"); return
        }
        guard case .refused = DeviceStanding.decide(directory: forged, device: laptop, held: account, pinned: nil) else {
            Issue.record("held account keys refuse a substitute"); return
        }
        // A fresh device shows a code the trusted device will not match.
        guard case let .awaitingApproval(_, code) = DeviceStanding.decide(directory: forged, device: desktop, held: nil, pinned: nil) else {
            Issue.record("a fresh device waits"); return
        }
        #expect(code != ApprovalCode.of(account: account.publicKeys, device: desktop.publicKeys))
    }

    @Test func aWrappedAccountKeySubstitutedByTheServerIsRefused() throws {
        // The server approves the desktop itself, with account keys of its own.
        var directory = try enabled()
        let other = AccountKeys.generate()
        directory.apply(try other.trusting(desktop.publicKeys))
        guard case .refused = DeviceStanding.decide(directory: directory, device: desktop, held: nil, pinned: account.publicKeys) else {
            Issue.record("an approval the account did not sign is refused"); return
        }
        #expect(!account.trusts(DeviceID(desktop.publicKeys), in: directory))
    }

    @Test func theRecoveryKeyOpensTheAccountKeysAndANewOneReplacesIt() throws {
        var directory = try enabled()
        let recovered = try DeviceStanding.recovering(with: recovery, directory: directory, pinned: nil)
        #expect(recovered.publicKeys == account.publicKeys)
        #expect(throws: EncryptionError.self) { try DeviceStanding.recovering(with: RecoveryKey(), directory: directory, pinned: nil) }
        let replacement = RecoveryKey()
        directory.apply(account.replacingRecovery(with: replacement))
        #expect(throws: EncryptionError.self) { try DeviceStanding.recovering(with: recovery, directory: directory, pinned: nil) }
        #expect(try DeviceStanding.recovering(with: replacement, directory: directory, pinned: nil).publicKeys == account.publicKeys)
    }

    @Test func aRecoveryWrapOfOtherKeysIsRefused() throws {
        var directory = try enabled()
        let other = AccountKeys.generate()
        directory.apply(other.replacingRecovery(with: recovery))
        #expect(throws: EncryptionError.self) { try DeviceStanding.recovering(with: recovery, directory: directory, pinned: account.publicKeys) }
    }

    @Test func folderEpochsOpenOnlyWhenTheAccountSignedThemForThatZone() throws {
        var directory = try enabled()
        let zone = ZoneID("e.aaaaaaaaaaaaaaaaaaaaaaaaaa"), other = ZoneID("e.bbbbbbbbbbbbbbbbbbbbbbbbbb")
        #expect(account.keyring(of: zone, in: directory) == nil)
        let secret = FolderEpochKeys.newSecret()
        directory.apply(try account.startingEpoch(1, of: zone, secret: secret))
        directory.apply(try account.startingEpoch(2, of: zone))
        let keyring = try #require(account.keyring(of: zone, in: directory))
        #expect(keyring.epochs.keys.sorted() == [1, 2])
        #expect(keyring.current.epoch == 2)
        #expect(directory.zonesWithKeys == [zone])
        // The same entry moved to another zone's key does not open there.
        var moved = directory
        var writes = KeyDirectoryWrites()
        writes.values["f.\(other.name).1"] = directory.values["f.\(zone.name).1"]
        moved.apply(writes)
        #expect(account.keyring(of: other, in: moved) == nil)
        // An epoch the server signed with keys of its own is left out.
        var injected = directory
        injected.apply(try AccountKeys.generate().startingEpoch(3, of: zone))
        #expect(account.keyring(of: zone, in: injected)?.current.epoch == 2)
    }

    @Test func statementsRoundTripThroughJSONText() throws {
        let statement = KeyStatement(.accountKeys, subject: "account", payload: account.publicKeys.bytes, signedBy: account.pair.signing)
        let read = try KeyStatement(json: try JSONValue(parsing: statement.json.text))
        #expect(read == statement)
        #expect(throws: EncryptionError.self) { try KeyStatement(json: .object(["suite": .number(9), "kind": .number(3)])) }
    }
}
