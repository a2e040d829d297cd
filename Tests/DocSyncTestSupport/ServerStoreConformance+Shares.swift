import DocSyncCore
import DocSyncServer
import DocSyncStorage
import Foundation
import Testing

/// The server-store suite's cases of sharing (SPEC §11): the rules a share's entries change
/// by, who may do what, and that one entry changes only from what was read.
extension ServerStoreCase {
    static let taxes = ShareName(owner: "alice", zone: ZoneID("Taxes 2026"))

    static func addUsers(_ names: [String], to store: any ServerStore) async throws {
        for name in names { _ = try await store.addUser(name, device: nil) }
    }

    func runShares(_ fixture: ServerStoreFixture) async throws {
        let store = fixture.store, share = Self.taxes
        switch self {
        case .sharesChangeByTheirRulesOnEveryInstance:
            try await Self.addUsers(["alice", "bob", "carol", "dave"], to: store)
            let other = try await fixture.openAnotherInstance()
            let invited = try await store.changeShare(share, .invite(.readWrite), participants: ["carol", "bob"])
            #expect(invited.map(\.participant) == ["bob", "carol"])
            #expect(invited.map(\.status) == [.invited, .invited])
            _ = try await store.changeShare(share, .setPermission(.readOnly), participants: ["carol"])
            #expect(try await other.shares(of: "carol").map(\.permission) == [.readOnly], "another instance sees it at once")
            #expect(try await other.answerShare(share, participant: "bob", .accept).status == .accepted)
            #expect(try await store.answerShare(share, participant: "carol", .decline).status == .declined)
            #expect(try await store.answerShare(share, participant: "bob", .accept).status == .accepted, "accepting again changes nothing")
            await expectSyncError(.invalidArguments) { _ = try await store.answerShare(share, participant: "bob", .decline) }
            // Nothing offered: the answer of a share that does not exist.
            await expectSyncError(.zoneNotFound) { _ = try await store.answerShare(share, participant: "dave", .accept) }
            await expectSyncError(.zoneNotFound) { _ = try await store.answerShare(share, participant: "carol", .accept) }
            await expectSyncError(.zoneNotFound) {
                _ = try await store.answerShare(ShareName(owner: "nobody", zone: share.zone), participant: "dave", .accept)
            }
            await expectSyncError(.zoneNotFound) { _ = try await store.answerShare(share, participant: "alice", .accept) }
            // The owner's mistakes.
            await expectSyncError(.invalidArguments) { _ = try await store.changeShare(share, .invite(.readWrite), participants: ["alice"]) }
            await expectSyncError(.invalidArguments) { _ = try await store.changeShare(share, .invite(.readWrite), participants: ["nobody"]) }
            await expectSyncError(.invalidArguments) { _ = try await store.changeShare(share, .invite(.readWrite), participants: ["../x"]) }
            await expectSyncError(.invalidArguments) { _ = try await store.changeShare(share, .remove, participants: ["dave"]) }
            await expectSyncError(.invalidArguments) { _ = try await store.changeShare(share, .setPermission(.readOnly), participants: ["carol"]) }
            #expect(try await store.shares(of: "dave").isEmpty, "nothing refused was stored")
            // Removed, then invited afresh; a stop ends every open entry and leaves ended ones.
            #expect(try await store.changeShare(share, .remove, participants: ["bob"]).map(\.status) == [.removed, .declined])
            await expectSyncError(.zoneNotFound) { _ = try await other.answerShare(share, participant: "bob", .accept) }
            #expect(try await store.changeShare(share, .invite(.readOnly), participants: ["bob"]).first?.status == .invited)
            #expect(try await other.answerShare(share, participant: "bob", .leave).status == .left)
            _ = try await store.changeShare(share, .invite(.readWrite), participants: ["bob", "dave"])
            let stopped = try await store.changeShare(share, .stop, participants: [])
            #expect(stopped.map(\.participant) == ["bob", "carol", "dave"])
            #expect(stopped.map(\.status) == [.stopped, .declined, .stopped])
            #expect(try await other.shares(of: "bob").map(\.share) == [share], "an ended entry is kept")
            #expect(try await other.shareEntries(of: share) == stopped)

        case .accessFollowsTheShareOnEveryInstance:
            try await Self.addUsers(["alice", "bob", "carol", "dave", "erin"], to: store)
            let other = try await fixture.openAnotherInstance()
            _ = try await store.changeShare(share, .invite(.readWrite), participants: ["bob", "dave"])
            _ = try await store.changeShare(share, .invite(.readOnly), participants: ["carol"])
            _ = try await store.answerShare(share, participant: "bob", .accept)
            _ = try await store.answerShare(share, participant: "carol", .accept)
            for instance in [store, other] {
                for operation in ZoneOperation.allCases {
                    #expect(try await instance.access(operation, caller: "alice", share: share) == .owner)
                }
                #expect(try await instance.access(.save, caller: "bob", share: share) == .participant(.readWrite))
                #expect(try await instance.access(.recover, caller: "bob", share: share) == .participant(.readWrite))
                await expectSyncError(.permissionDenied) { _ = try await instance.access(.purge, caller: "bob", share: share) }
                #expect(try await instance.access(.read, caller: "carol", share: share) == .participant(.readOnly))
                await expectSyncError(.permissionDenied) { _ = try await instance.access(.save, caller: "carol", share: share) }
                for caller in ["dave", "erin", "nobody"] {
                    await expectSyncError(.zoneNotFound) { _ = try await instance.access(.read, caller: caller, share: share) }
                }
            }
            _ = try await store.changeShare(share, .remove, participants: ["bob"])
            await expectSyncError(.zoneNotFound) { _ = try await other.access(.read, caller: "bob", share: share) }
            _ = try await other.changeShare(share, .setPermission(.readWrite), participants: ["carol"])
            #expect(try await store.access(.save, caller: "carol", share: share) == .participant(.readWrite), "a permission applies at once")

        case .aShareEntryChangesOnlyFromWhatWasRead:
            try await Self.addUsers(["alice", "bob"], to: store)
            let other = try await fixture.openAnotherInstance()
            let rows = store, otherRows = other
            let t0 = Timestamp(nanosecondsSince1970: 1_000)
            let invited = ShareEntry(share: share, participant: "bob", permission: .readWrite, status: .invited, changed: t0)
            var accepted = invited
            accepted.status = .accepted
            accepted.changed = Timestamp(nanosecondsSince1970: 2_000)
            var removed = invited
            removed.status = .removed
            removed.changed = Timestamp(nanosecondsSince1970: 3_000)
            #expect(try await rows.replaceShareEntry(nil, with: invited))
            #expect(try await otherRows.replaceShareEntry(nil, with: removed) == false, "there is one already")
            #expect(try await otherRows.replaceShareEntry(invited, with: accepted))
            #expect(try await rows.replaceShareEntry(invited, with: removed) == false, "what was read changed meanwhile")
            #expect(try await rows.shares(of: "bob") == [accepted])
            // A removal and an acceptance racing on two instances: the removal is never undone.
            for round in 0 ..< 8 {
                _ = try await store.changeShare(share, .invite(.readOnly), participants: ["bob"])
                async let accept: ShareEntry? = try? other.answerShare(share, participant: "bob", .accept)
                async let remove = store.changeShare(share, .remove, participants: ["bob"])
                _ = await accept
                _ = try await remove
                #expect(try await other.shares(of: "bob").map(\.status) == [.removed], "round \(round)")
            }

        case .aKeyValueStoreIsNeverShared:
            try await Self.addUsers(["alice", "bob"], to: store)
            let settings = ShareName(owner: "alice", zone: KeyValueStoreID("org.example.editor").zone)
            await expectSyncError(.invalidArguments) { _ = try await store.changeShare(settings, .invite(.readWrite), participants: ["bob"]) }
            #expect(try await store.shares(of: "bob").isEmpty)

        default:
            preconditionFailure("\(self) is not a case of sharing")
        }
    }
}
