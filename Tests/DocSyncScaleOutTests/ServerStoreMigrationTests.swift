import DocSyncCore
import DocSyncServer
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// `docsync-server migrate` between the two server stores: what an embedded store holds,
/// read back through the scale-out store's `ServerStore` as a device would see it.
@Suite struct ServerStoreMigrationTests {
    @Test func everythingAnEmbeddedStoreHoldsReadsTheSameFromTheScaleOutStore() async throws {
        let directory = try TemporaryDirectory("docsync-migrate")
        let embedded = try EmbeddedServerStore(dataDirectory: directory.url, settings: StoreSettings(collectionInterval: 0))
        let alicesToken = try await embedded.addUser("alice", device: "laptop")
        let phoneToken = try await embedded.addToken(for: "alice", device: "phone")
        let bobsToken = try await embedded.addUser("bob", device: nil)
        try await embedded.setQuota(50_000_000, for: "alice")
        let zone = ZoneID("Documents")
        let alice = try await embedded.backend(for: "alice")
        try await alice.createZone(zone)
        let content = Data((0 ..< 300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) })
        var document = try await alice.save(try await TestRecords.document(zone, "report.bin", content: content, on: alice))
        document.path = RelativePath("renamed.bin")
        document = try await alice.save(document)  // its first version is kept as replaced
        let sealed = TestSealing.chunk(Data("a sealed chunk of an encrypted folder".utf8))
        try await alice.uploadChunks([ChunkUpload(sealed: sealed)])
        let doomed = try await alice.save(TestRecords.folder(zone, "doomed"))
        let deletion = try await alice.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: doomed.id, baseTag: doomed.changeTag, device: "phone")]))
        #expect(deletion.failed.isEmpty)
        let before = try await alice.fetchAllChanges(in: zone, since: nil)
        let deletedBefore = try await alice.listDeleted(in: zone, since: nil)
        let bytesBefore = try await embedded.storedBytes(of: "alice")

        let storage = try await ScaleOutTestStorage.make()
        do {
            let report = try await ServerMigration(dataDirectory: directory.url, destination: try await storage.open()).run()
            #expect(report.users == 2 && report.zones == 1 && report.deletedRecords == 1 && report.keptVersions >= 1)
            let scaleOut = ScaleOutServerStore(store: try await storage.open())
            #expect(try await scaleOut.authenticate(alicesToken) == AccountIdentity(user: "alice", device: "laptop"))
            #expect(try await scaleOut.authenticate(phoneToken) == AccountIdentity(user: "alice", device: "phone"))
            #expect(try await scaleOut.authenticate(bobsToken) == AccountIdentity(user: "bob", device: nil))
            #expect(try await scaleOut.users() == (try await embedded.users()))
            let migrated = try await scaleOut.backend(for: "alice")
            // A device goes on from its token: nothing new, nothing expired.
            let after = try await migrated.fetchChanges(in: zone, since: before.token, limit: 100)
            #expect(after.changed.isEmpty && after.deleted.isEmpty && !after.moreComing)
            let everything = try await migrated.fetchAllChanges(in: zone, since: nil)
            #expect(everything.changed == before.changed)
            #expect(everything.deleted == before.deleted)
            #expect(try await migrated.listDeleted(in: zone, since: nil) == deletedBefore)
            #expect(try await migrated.loadAsset(try #require(document.asset)) == content)
            #expect(try await migrated.downloadChunk(sealed.id) == sealed.body, "a sealed chunk moves with its body digest")
            #expect(try await scaleOut.storedBytes(of: "alice") == bytesBefore)
            // A save based on a change tag from before the move is accepted.
            var edited = document
            edited.mode = 0o600
            #expect(try await migrated.save(edited).changeTag != document.changeTag)
            #expect(try await scaleOut.storedBytes(of: "bob") == 0)
        } catch {
            await storage.close()
            throw error
        }
        await storage.close()
    }
}
