import DocSyncCore
import DocSyncHTTP
import DocSyncServer
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// A participant's `HTTPBackend` on the zones an owner shares with it (SPEC §11), against
/// both stores: it reads and writes the owner's zone, its uploads are the owner's chunks
/// on the owner's quota, and push reaches it until its part ends.
@Suite struct SharedZoneRoutesTests {
    static let zone = ZoneID("Taxes 2026")
    static let share = ShareName(owner: "alice", zone: zone)

    /// alice shares `zone` read-write with bob, who accepted; returns alice's backend and
    /// bob's on alice's shared zones.
    static func shared(_ server: RouteServer) async throws -> (alice: HTTPBackend, bob: HTTPBackend, bobOwn: HTTPBackend) {
        let alice = try HTTPBackend(url: server.url, token: try await server.addUser("alice"))
        let bobToken = try await server.addUser("bob")
        let bobOwn = try HTTPBackend(url: server.url, token: bobToken)
        try await alice.createZone(zone)
        _ = try await alice.changeShare(of: zone, .init(action: .invite, participants: ["bob"]))
        #expect(try await bobOwn.shares().map(\.status) == [.invited])
        #expect(try await bobOwn.answerShare(share, .accept).status == .accepted)
        let bob = try HTTPBackend(url: server.url, token: bobToken, owner: "alice",
                                  options: HTTPBackend.Options(reconnectInitialDelay: .milliseconds(50), reconnectMaximumDelay: .seconds(1)))
        return (alice, bob, bobOwn)
    }

    @Test(arguments: StoreKind.allCases) func aParticipantWritesTheOwnersZoneOnTheOwnersQuota(_ kind: StoreKind) async throws {
        try await RouteServer.with(kind) { server in
            let (alice, bob, bobOwn) = try await Self.shared(server)
            #expect(try await bob.listZones() == [Self.zone])
            #expect(try await bobOwn.listZones().isEmpty, "the share is not bob's own zone")
            let content = Data("bob's figures".utf8)
            let saved = try await bob.save(try await TestRecords.document(Self.zone, "bob.txt", content: content, on: bob))
            #expect(try await alice.fetchRecords([saved.id])[saved.id]?.path == RelativePath("bob.txt"))
            #expect(try await server.store.storedBytes(of: "alice") == Int64(content.count), "the chunk is the owner's")
            #expect(try await server.store.storedBytes(of: "bob") == 0)
            let digest = try #require(saved.asset?.entries.first?.digest)
            #expect(try await bob.downloadChunk(digest) == content)
            await expectSyncError(.chunkNotFound) { _ = try await bobOwn.downloadChunk(digest) }

            try await server.store.setQuota(Int64(content.count), for: "alice")
            let more = Data("more than fits".utf8)
            let refused = await expectSyncError(.quotaExceeded) { try await bob.uploadChunks([ChunkUpload(digest: SHA256Digest(hashing: more), bytes: more)]) }
            #expect(refused?.quota?.quotaBytes == Int64(content.count), "the owner's quota")
            try await server.store.setQuota(nil, for: "alice")

            _ = try await alice.changeShare(of: Self.zone, .init(action: .permission, participants: ["bob"], permission: .readOnly))
            var edit = saved
            edit.path = RelativePath("renamed.txt")
            await expectSyncError(.permissionDenied) { _ = try await bob.modifyRecords(RecordBatch(zone: Self.zone, saves: [edit])) }
            #expect(try await alice.fetchRecords([saved.id])[saved.id]?.path == RelativePath("bob.txt"), "a refused save changes nothing")
            #expect(try await bob.fetchRecords([saved.id])[saved.id]?.path == RelativePath("bob.txt"), "bob still reads")
        }
    }

    /// iCloud's `lastEditorName`: the server names the account of every save and recovery,
    /// whatever the device wrote in the record, and the saving client learns it from the answer.
    @Test(arguments: StoreKind.allCases) func theServerNamesTheAccountThatSavedEachVersion(_ kind: StoreKind) async throws {
        try await RouteServer.with(kind) { server in
            let (alice, bob, _) = try await Self.shared(server)
            var claimed = try await TestRecords.document(Self.zone, "minutes.md", content: Data("bob's".utf8), on: bob)
            claimed.lastEditorName = "alice"
            let saved = try await bob.save(claimed)
            #expect(saved.lastEditorName == "bob", "the answer names the caller, not what the record claimed")
            #expect(try await alice.fetchRecords([saved.id])[saved.id]?.lastEditorName == "bob")

            var edit = saved
            edit.path = RelativePath("minutes (final).md")
            let edited = try await alice.save(edit)
            #expect(edited.lastEditorName == "alice")
            let changes = try await bob.fetchChanges(in: Self.zone, since: nil, limit: 100)
            #expect(changes.changed.map(\.lastEditorName) == ["alice"])

            _ = try await alice.modifyRecords(RecordBatch(zone: Self.zone, deletions: [RecordDeletion(id: saved.id)]))
            let recovered = try await bob.recoverDeleted([DeletedRecordRecovery(id: saved.id, device: "bob laptop", editor: "mallory")], in: Self.zone)
            #expect(recovered.saved[saved.id]?.lastEditorName == "bob", "a recovery is the caller's save too")
            #expect(try await alice.fetchRecords([saved.id])[saved.id]?.lastEditorName == "bob")
        }
    }

    @Test(arguments: StoreKind.allCases) func pushReachesAParticipantUntilItsPartEnds(_ kind: StoreKind) async throws {
        try await RouteServer.with(kind) { server in
            let (alice, bob, _) = try await Self.shared(server)
            let heard = Synchronized([Set<ZoneID>]())
            let stream = bob.changeNotifications()
            let listening = Task { for await note in stream { heard.update { $0.append(note.zones) } } }
            defer { listening.cancel() }
            #expect(try await eventually { heard.value.count >= 1 }, "the stream opens with the zones bob may read")
            #expect(heard.value.first == [Self.zone])

            _ = try await alice.save(TestRecords.folder(Self.zone, "2026"))
            #expect(try await eventually { heard.value.count >= 2 }, "alice's save reaches bob")
            _ = try await alice.changeShare(of: Self.zone, .init(action: .permission, participants: ["bob"], permission: .readOnly))
            #expect(try await eventually { heard.value.count >= 3 }, "a permission change reaches bob")
            _ = try await alice.changeShare(of: Self.zone, .init(action: .remove, participants: ["bob"]))
            #expect(try await eventually { heard.value.count >= 4 }, "so does his removal, once")
            #expect(heard.value.allSatisfy { $0 == [Self.zone] })
            await expectSyncError(.zoneNotFound) { _ = try await bob.fetchChanges(in: Self.zone, since: nil, limit: 10) }

            // Nothing more of the zone reaches bob: the next thing he hears is another share's.
            _ = try await alice.save(TestRecords.folder(Self.zone, "after removal"))
            let other = ZoneID("Other")
            try await alice.createZone(other)
            _ = try await alice.changeShare(of: other, .init(action: .invite, participants: ["bob"]))
            _ = try await HTTPBackend(url: server.url, token: try await server.store.addToken(for: "bob", device: nil))
                .answerShare(ShareName(owner: "alice", zone: other), .accept)
            _ = try await alice.save(TestRecords.folder(other, "shared later"))
            #expect(try await eventually { heard.value.count >= 5 })
            #expect(heard.value[4] == [other], "the save after the removal was not heard")
        }
    }

    /// Only the owner moves a shared zone (SPEC §13); a participant then finds it moved, as
    /// every device syncing it does, and takes part in the zone it moved to.
    @Test(arguments: StoreKind.allCases) func onlyTheOwnerMovesASharedZoneAndItsParticipantsFindItMoved(_ kind: StoreKind) async throws {
        try await RouteServer.with(kind) { server in
            let (alice, bob, _) = try await Self.shared(server)
            let sealed = ZoneID("Sealed")
            try await alice.createZone(sealed)
            let saved = try await bob.save(TestRecords.folder(Self.zone, "bob's folder"))
            let refused = await expectSyncError(.permissionDenied) { try await bob.moveZone(Self.zone, to: sealed) }
            #expect(refused?.message.contains("only alice") == true, "\(String(describing: refused))")
            #expect(try await alice.fetchRecords([saved.id])[saved.id] != nil, "a refused move changes nothing")
            #expect(try await bob.listZones() == [Self.zone])

            try await alice.moveZone(Self.zone, to: sealed)
            let moved = await expectSyncError(.zoneMoved) { try await bob.fetchChanges(in: Self.zone, since: nil, limit: 10) }
            #expect(moved?.movedTo == sealed)
            await expectSyncError(.zoneMoved) { try await bob.modifyRecords(RecordBatch(zone: Self.zone, saves: [TestRecords.folder(Self.zone, "late")])) }
            #expect(try await bob.listZones() == [sealed], "a moved zone is not listed to its participants; the zone it moved to is, bob taking part there")
            #expect(try await bob.fetchChanges(in: sealed, since: nil, limit: 10).changed.isEmpty, "bob reads the zone it moved to")
            let entries = try await alice.share(of: sealed).participants
            #expect(entries.map(\.participant) == ["bob"] && entries.map(\.status) == [.accepted], "carried with its permission and status: \(entries)")
        }
    }
}
