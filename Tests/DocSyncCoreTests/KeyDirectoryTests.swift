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
        #expect(try directory.account()?.generation == 1)
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
        #expect(shown.keys == account.publicKeys && shown.generation == 1)
        let announcement = try #require(directory.announcements[DeviceID(desktop.publicKeys)])
        #expect(account.name(of: announcement) == "desktop", "the account's devices read the name")
        #expect(AccountKeys.generate().name(of: announcement) == nil, "no other account does")
        var approved = directory
        approved.apply(try account.approving(announcement, code: code.replacingOccurrences(of: " ", with: "-")))
        guard case let .trusted(keys) = DeviceStanding.decide(directory: approved, device: desktop, held: nil, pinned: PinnedAccount(keys: shown.keys, generation: 1)) else {
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
        guard case .refused = DeviceStanding.decide(directory: forged, device: desktop, held: nil, pinned: PinnedAccount(keys: account.publicKeys, generation: 1)) else {
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
        guard case .refused = DeviceStanding.decide(directory: directory, device: desktop, held: nil, pinned: PinnedAccount(keys: account.publicKeys, generation: 1)) else {
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
        directory.apply(try account.replacingRecovery(with: replacement.agreementKey.publicKey))
        #expect(throws: EncryptionError.self) { try DeviceStanding.recovering(with: recovery, directory: directory, pinned: nil) }
        #expect(try DeviceStanding.recovering(with: replacement, directory: directory, pinned: nil).publicKeys == account.publicKeys)
    }

    @Test func aRecoveryWrapOfOtherKeysIsRefused() throws {
        var directory = try enabled()
        let other = AccountKeys.generate()
        directory.apply(try other.replacingRecovery(with: recovery.agreementKey.publicKey))
        #expect(throws: EncryptionError.self) { try DeviceStanding.recovering(with: recovery, directory: directory, pinned: PinnedAccount(keys: account.publicKeys, generation: 1)) }
    }

    @Test func folderEpochsOpenOnlyWhenTheAccountSignedThemForThatZone() throws {
        var directory = try enabled()
        let zone = ZoneID("e.aaaaaaaaaaaaaaaaaaaaaaaaaa"), other = ZoneID("e.bbbbbbbbbbbbbbbbbbbbbbbbbb")
        #expect(account.keyring(of: zone, in: directory)?.epochs.keys.sorted() == [1], "a zone without epochs has its first derived")
        directory.apply(try account.startingEpoch(1, of: zone, secret: account.firstEpochSecret(of: zone)))
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
        #expect(account.keyring(of: other, in: moved) == nil, "an entry moved to another zone does not open there")
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

    // MARK: removing a device: the account's next generation

    /// The laptop, the desk and a spare are trusted; the desk's folder zone has an epoch.
    func threeTrusted() throws -> (KeyDirectory, EncryptionKeyPair, ZoneID) {
        var directory = try enabled()
        let spare = EncryptionKeyPair()
        directory.apply(try AccountKeys.announcing(spare.publicKeys, name: "spare", to: account.publicKeys))
        directory.apply(try account.trusting(desktop.publicKeys))
        directory.apply(try account.trusting(spare.publicKeys))
        let zone = account.opaqueZoneName(for: ZoneID("Documents"))
        directory.apply(try account.startingEpoch(1, of: zone, secret: account.firstEpochSecret(of: zone)))
        return (directory, spare, zone)
    }

    @Test func removingADeviceMovesTheOthersToANewGenerationAndANewEpoch() throws {
        var (directory, spare, zone) = try threeTrusted()
        let pending = EncryptionKeyPair()
        directory.apply(try AccountKeys.announcing(pending.publicKeys, name: "pending", to: account.publicKeys))
        let old = try #require(account.keyring(of: zone, in: directory))
        let (next, writes) = try account.rotating(removing: DeviceID(desktop.publicKeys), in: directory, zones: [zone])
        directory.apply(writes)
        #expect(next.generation == 2 && next.publicKeys != account.publicKeys)
        #expect(next.opaqueZoneName(for: ZoneID("Documents")) == zone, "folders keep their zones")

        // The spare follows the signed link and holds the new keys; so does a recovery.
        guard case let .trusted(spareKeys) = DeviceStanding.decide(directory: directory, device: spare, held: account, pinned: nil) else {
            Issue.record("the spare is trusted under the next generation"); return
        }
        #expect(spareKeys.generation == 2 && spareKeys.publicKeys == next.publicKeys)
        #expect(spareKeys.zoneNameSecret.withUnsafeBytes { Data($0) } == account.zoneNameSecret.withUnsafeBytes { Data($0) })
        #expect(try DeviceStanding.recovering(with: recovery, directory: directory, pinned: PinnedAccount(keys: account.publicKeys, generation: 1)).generation == 2)
        // The new epoch is sealed for the new keys; old epochs stay readable to those who remain.
        let keyring = try #require(spareKeys.keyring(of: zone, in: directory))
        #expect(keyring.current.epoch == 2 && keyring.epochs.keys.sorted() == [1, 2])
        let content = Data("written after the removal".utf8)
        let sealed = keyring.current.sealChunk(content, id: keyring.current.chunkID(of: content), zone: zone)
        let oldSealed = old.current.sealChunk(content, id: old.current.chunkID(of: content), zone: zone)
        #expect(try keyring.openChunk(oldSealed.body, id: oldSealed.id, zone: zone) == content)

        // The desk keeps every old key and the whole directory: it is told it was removed,
        // and opens nothing sealed in the new epoch.
        guard case let .refused(error) = DeviceStanding.decide(directory: directory, device: desktop, held: account, pinned: nil) else {
            Issue.record("the removed desk is refused"); return
        }
        #expect(error.message.contains("removed"))
        #expect(account.epochSecrets(of: zone, in: directory).isEmpty, "every epoch is now wrapped for the next generation only")
        #expect(throws: EncryptionError.self) { try old.openChunk(sealed.body, id: sealed.id, zone: zone) }
        #expect(!directory.trustedIDs.contains(DeviceID(desktop.publicKeys)) && directory.announcements[DeviceID(desktop.publicKeys)] == nil)
        // A device not approved yet is forgotten and waits again, with the new generation's code.
        #expect(directory.announcements[DeviceID(pending.publicKeys)] == nil)
        guard case let .awaitingApproval(shown, code) = DeviceStanding.decide(directory: directory, device: pending, held: nil,
                                                                              pinned: PinnedAccount(keys: account.publicKeys, generation: 1)) else {
            Issue.record("the pending device waits"); return
        }
        #expect(shown.generation == 2 && code == ApprovalCode.of(account: next.publicKeys, device: pending.publicKeys))
    }

    @Test func aNewGenerationTheAccountDidNotSignOrAnOlderOneIsRefused() throws {
        var (directory, spare, zone) = try threeTrusted()
        // The server (with the removed desk's old keys, or none) makes a generation 2 of its own.
        var forged = directory
        let intruder = AccountKeys(EncryptionKeyPair(), generation: 2)
        forged.apply(try intruder.enabling(recoveryKey: RecoveryKey(), device: spare.publicKeys, name: "spare"))
        guard case .refused = DeviceStanding.decide(directory: forged, device: spare, held: account, pinned: nil) else {
            Issue.record("an unsigned generation is refused"); return
        }
        // A real rotation, then the server serves the directory from before it.
        let before = directory
        let (_, writes) = try account.rotating(removing: DeviceID(desktop.publicKeys), in: directory, zones: [zone])
        directory.apply(writes)
        guard case let .trusted(current) = DeviceStanding.decide(directory: directory, device: spare, held: account, pinned: nil) else {
            Issue.record("the spare follows"); return
        }
        guard case let .refused(error) = DeviceStanding.decide(directory: before, device: spare, held: current, pinned: nil) else {
            Issue.record("an older generation is refused"); return
        }
        #expect(error.kind == .rolledBack)
    }

    @Test func storedAccountKeysRoundTrip() throws {
        let keys = AccountKeys(EncryptionKeyPair(), generation: 7, zoneNameSecret: account.zoneNameSecret)
        let back = try AccountKeys(stored: keys.stored)
        #expect(back.generation == 7 && back.publicKeys == keys.publicKeys && back.stored == keys.stored)
        #expect(throws: EncryptionError.self) { try AccountKeys(stored: Data(count: 64)) }
        let pinned = PinnedAccount(keys: account.publicKeys, generation: 3)
        #expect(try PinnedAccount(stored: pinned.stored) == pinned)
    }
}
