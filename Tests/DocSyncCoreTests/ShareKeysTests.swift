import Crypto
import DocSyncCore
import Foundation
import Testing

/// The keys of encrypted folders shared between accounts (SPEC §13, `ShareKeys`): the
/// owner wraps each epoch for the participants it confirmed, a participant opens them with
/// its account keys once the pinned owner signed them, a removal or a participant's new keys
/// start a new epoch nobody removed reads, and what a server substitutes opens nothing.
@Suite struct ShareKeysTests {
    let alice = AccountKeys.generate()
    let bob = AccountKeys.generate()
    let carol = AccountKeys.generate()
    let zone = ZoneID("e.shared")

    /// Each account's public store as it publishes it.
    func published(_ keys: AccountKeys) -> KeyDirectory {
        var directory = KeyDirectory()
        directory.apply(keys.enabling(recoveryKeyless: ()))
        return KeyDirectory(values: directory.publishedPart)
    }

    func pin(_ keys: AccountKeys) -> PinnedAccount { PinnedAccount(keys: keys.publicKeys, generation: keys.generation) }

    /// Alice's directory and public store after applying `plan`.
    func applying(_ plan: SharePlan, to directory: inout KeyDirectory, _ store: inout KeyDirectory) {
        directory.apply(plan.directory)
        store.apply(plan.published)
    }

    @Test func bothSidesComputeTheSameCodeAndASubstitutedKeyChangesIt() {
        let code = ApprovalCode.ofShare(owner: alice.publicKeys, participant: bob.publicKeys)
        #expect(code.count == 19 && code == ApprovalCode.ofShare(owner: alice.publicKeys, participant: bob.publicKeys))
        let attacker = AccountKeys.generate()
        #expect(ApprovalCode.ofShare(owner: attacker.publicKeys, participant: bob.publicKeys) != code, "the server's keys shown to bob")
        #expect(ApprovalCode.ofShare(owner: alice.publicKeys, participant: attacker.publicKeys) != code, "the server's keys shown to alice")
        #expect(ApprovalCode.of(account: alice.publicKeys, device: bob.publicKeys) != code, "not a device approval code")
    }

    @Test func aPinIsReadBackOnlyWhenTheAccountSignedIt() {
        var directory = KeyDirectory()
        directory.apply(alice.pinning("bob", pin(bob)))
        #expect(alice.pin(of: "bob", in: directory) == pin(bob))
        #expect(alice.pin(of: "carol", in: directory) == nil)
        #expect(carol.pin(of: "bob", in: directory) == nil, "carol did not sign alice's pin")
        var forged = KeyDirectory()
        forged.apply(AccountKeys.generate().pinning("bob", pin(carol)))
        #expect(alice.pin(of: "bob", in: forged) == nil, "a pin the server wrote under its own key")
    }

    @Test func aConfirmedParticipantReadsEveryEpochAndOthersNothing() throws {
        var directory = KeyDirectory(), store = KeyDirectory()
        directory.apply(try alice.startingEpoch(1, of: zone, secret: alice.firstEpochSecret(of: zone)))
        directory.apply(try alice.startingEpoch(2, of: zone, secret: alice.derivedEpochSecret(of: zone, epoch: 2)))
        let plan = try alice.sharingPlan(of: zone, directory: directory, published: store, participants: ["bob": pin(bob)])
        #expect(plan.newEpoch == nil && plan.directory.isEmpty, "nobody was removed")
        applying(plan, to: &directory, &store)
        let ring = try #require(bob.sharedKeyring(of: zone, owner: pin(alice), published: store, me: "bob"))
        #expect(ring.epochs.keys.sorted() == [1, 2] && ring.current.epoch == 2)
        let own = try #require(alice.keyring(of: zone, in: directory))
        let sealed = own.current.sealing(Data("the plan".utf8), zone: zone)
        #expect(try ring.openChunk(sealed.body, id: sealed.id, zone: zone) == Data("the plan".utf8), "bob opens what alice sealed")
        #expect(carol.sharedKeyring(of: zone, owner: pin(alice), published: store, me: "bob") == nil, "carol's keys open no wrap for bob")
        #expect(carol.sharedKeyring(of: zone, owner: pin(alice), published: store, me: "carol") == nil, "nothing was wrapped for carol")
        #expect(bob.sharedKeyring(of: ZoneID("e.other"), owner: pin(alice), published: store, me: "bob") == nil, "wraps name their zone")
        // Planned again after its writes: nothing to do.
        #expect(try alice.sharingPlan(of: zone, directory: directory, published: store, participants: ["bob": pin(bob)]).isEmpty)
    }

    @Test func wrapsSignedByAnotherKeyOrMovedToAnotherZoneOpenNothing() throws {
        var directory = KeyDirectory(), store = KeyDirectory()
        let attacker = AccountKeys.generate()
        // The server wraps its own secret for bob and signs it with its own key.
        let forged = try attacker.sharingPlan(of: zone, directory: KeyDirectory(), published: store, participants: ["bob": pin(bob)])
        store.apply(forged.published)
        #expect(bob.sharedKeyring(of: zone, owner: pin(alice), published: store, me: "bob") == nil, "not signed by the pinned owner")
        // Alice's real wraps of another zone, copied under this zone's keys.
        let other = ZoneID("e.other")
        let real = try alice.sharingPlan(of: other, directory: directory, published: KeyDirectory(), participants: ["bob": pin(bob)])
        var renamed = KeyDirectoryWrites()
        for (key, value) in real.published.values { renamed.values[key.replacingOccurrences(of: other.name, with: zone.name)] = value }
        var moved = KeyDirectory()
        moved.apply(renamed)
        #expect(bob.sharedKeyring(of: zone, owner: pin(alice), published: moved, me: "bob") == nil, "the statement names its zone")
        directory.apply(real.directory)
    }

    @Test func removingAParticipantStartsAnEpochOnlyTheOthersRead() throws {
        var directory = KeyDirectory(), store = KeyDirectory()
        applying(try alice.sharingPlan(of: zone, directory: directory, published: store, participants: ["bob": pin(bob), "carol": pin(carol)]), to: &directory, &store)
        let carolsOldRing = try #require(carol.sharedKeyring(of: zone, owner: pin(alice), published: store, me: "carol"))

        let plan = try alice.sharingPlan(of: zone, directory: directory, published: store, participants: ["bob": pin(bob)])
        #expect(plan.newEpoch == 2)
        applying(plan, to: &directory, &store)
        let own = try #require(alice.keyring(of: zone, in: directory))
        #expect(own.current.epoch == 2, "alice seals with the new epoch")
        let bobs = try #require(bob.sharedKeyring(of: zone, owner: pin(alice), published: store, me: "bob"))
        #expect(bobs.epochs.keys.sorted() == [1, 2])
        #expect(carol.sharedKeyring(of: zone, owner: pin(alice), published: store, me: "carol") == nil, "carol's wraps are gone")
        let later = own.current.sealing(Data("after carol left".utf8), zone: zone)
        #expect(throws: EncryptionError.self) { try carolsOldRing.openChunk(later.body, id: later.id, zone: zone) }
        #expect(try bobs.openChunk(later.body, id: later.id, zone: zone) == Data("after carol left".utf8))
        // Two owner devices planning the same removal derive the same epoch.
        #expect(try alice.sharingPlan(of: zone, directory: directory, published: store, participants: ["bob": pin(bob)]).isEmpty)
        #expect(alice.derivedEpochSecret(of: zone, epoch: 2) == alice.derivedEpochSecret(of: zone, epoch: 2))
    }

    @Test func aParticipantsNewKeysGetEveryEpochAgainAndANewOne() throws {
        var directory = KeyDirectory(), store = KeyDirectory()
        applying(try alice.sharingPlan(of: zone, directory: directory, published: store, participants: ["bob": pin(bob)]), to: &directory, &store)
        // Bob removed a device: his account's next generation.
        var bobsDirectory = KeyDirectory()
        bobsDirectory.apply(bob.enabling(recoveryKeyless: ()))
        let (next, writes) = try bob.rotating(removing: DeviceID(EncryptionKeyPair().publicKeys), in: bobsDirectory, zones: [])
        bobsDirectory.apply(writes)
        let bobNow = try #require(KeyDirectory(values: bobsDirectory.publishedPart).account(following: pin(bob)))
        #expect(bobNow.generation == 2 && bobNow.keys == next.publicKeys)
        let plan = try alice.sharingPlan(of: zone, directory: directory, published: store, participants: ["bob": bobNow])
        #expect(plan.newEpoch == 2, "bob's removed device held the old keys")
        applying(plan, to: &directory, &store)
        let ring = try #require(next.sharedKeyring(of: zone, owner: pin(alice), published: store, me: "bob"))
        #expect(ring.epochs.keys.sorted() == [1, 2])
        #expect(bob.sharedKeyring(of: zone, owner: pin(alice), published: store, me: "bob") == nil, "the old keys open nothing any more")
    }

    @Test func theOwnersKeysAreFollowedOnlyThroughLinksItSigned() throws {
        var directory = KeyDirectory()
        directory.apply(alice.enabling(recoveryKeyless: ()))
        let (next, writes) = try alice.rotating(removing: DeviceID(EncryptionKeyPair().publicKeys), in: directory, zones: [])
        directory.apply(writes)
        let store = KeyDirectory(values: directory.publishedPart)
        #expect(store.account(following: pin(alice)) == PinnedAccount(keys: next.publicKeys, generation: 2))
        var forged = KeyDirectory()
        forged.apply(AccountKeys.generate().enabling(recoveryKeyless: ()))
        #expect(KeyDirectory(values: forged.publishedPart).account(following: pin(alice)) == nil, "keys not linked from the pin")
        // After alice's rotation, her wraps are signed again by the new generation.
        var own = directory, published = KeyDirectory()
        let plan = try next.sharingPlan(of: zone, directory: own, published: published, participants: ["bob": pin(bob)])
        applying(plan, to: &own, &published)
        #expect(bob.sharedKeyring(of: zone, owner: try #require(store.account(following: pin(alice))), published: published, me: "bob") != nil)
    }
}

extension AccountKeys {
    /// Turning encryption on with a device and a recovery key nobody keeps.
    func enabling(recoveryKeyless: Void) -> KeyDirectoryWrites {
        try! enabling(recoveryKey: RecoveryKey(), device: EncryptionKeyPair().publicKeys, name: "device")
    }
}

extension FolderEpochKeys {
    /// `content` sealed as a chunk of `zone`.
    func sealing(_ content: Data, zone: ZoneID) -> SealedChunk { sealChunk(content, id: chunkID(of: content), zone: zone) }
}
