import DocSyncCore
import DocSyncStorage
import Foundation
import Testing

/// The conformance cases of moving a zone (SPEC §13, `StorageBackend.moveZone`): the moved
/// zone is a redirect that every call naming it answers with `zoneMoved` (its deletion
/// removes it), the target is left as it was, devices hear of the move, a retried move
/// succeeds; and the chunks only the moved zone referenced are gone when the call returns,
/// however recently they were stored, while every chunk something else keeps stays.
enum ZoneMoveConformance {
    static let moved = ZoneID("Documents"), target = ZoneID("Sealed"), other = ZoneID("Pictures")

    /// Expects `body` to throw `zoneMoved` naming `target`.
    static func expectMoved<T>(_ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T) async {
        let error = await expectSyncError(.zoneMoved, sourceLocation: sourceLocation, body)
        #expect(error?.movedTo == target, "\(what) names where the zone went: \(String(describing: error))", sourceLocation: sourceLocation)
    }

    static func redirect(_ fixture: BackendFixture) async throws {
        let backend = fixture.backend
        for zone in [moved, target, other] { try await backend.createZone(zone) }
        let kept = try await backend.save(TestRecords.folder(moved, "kept"))
        let doomed = try await backend.save(TestRecords.folder(moved, "doomed"))
        _ = try await backend.modifyRecords(RecordBatch(zone: moved, deletions: [RecordDeletion(id: doomed.id, device: "laptop")]))
        _ = try await backend.save({ var record = kept; record.path = RelativePath("renamed"); return record }())
        let token = try await backend.fetchAllChanges(in: moved, since: nil).token
        _ = try await backend.save(TestRecords.folder(target, "sealed copy"))
        let targetBefore = try await backend.fetchAllChanges(in: target, since: nil)

        // A device syncing the zone listens; its stream is live once it hears a later save.
        let listener = try await fixture.openAnotherClient()
        let heard = NotificationCollector(listener.changeNotifications())
        _ = try await backend.save(TestRecords.folder(other, "ping"))
        #expect(await eventually(timeout: .seconds(60)) { heard.notes.contains { $0.contains(other) } }, "the listener is live")
        let live = heard.notes.firstIndex { $0.contains(other) } ?? 0

        try await backend.moveZone(moved, to: target)

        let announced = await eventually(timeout: .seconds(60)) { heard.notes.dropFirst(live + 1).contains { $0.contains(moved) } }
        #expect(announced, "devices syncing the moved zone hear of the move")
        #expect(try await backend.listZones() == [other, target], "a moved zone is not listed")
        #expect(try await backend.usage().zoneCount == 2, "nor counted")
        await expectMoved("createZone") { try await backend.createZone(moved) }
        await expectMoved("modifyRecords") { try await backend.modifyRecords(RecordBatch(zone: moved, saves: [TestRecords.folder(moved, "late")])) }
        await expectMoved("fetchChanges from the start") { try await backend.fetchChanges(in: moved, since: nil, limit: 10) }
        await expectMoved("fetchChanges from a token") { try await backend.fetchChanges(in: moved, since: token, limit: 10) }
        await expectMoved("fetchRecords") { try await backend.fetchRecords([kept.id]) }
        await expectMoved("listDeleted") { try await backend.listDeleted(in: moved, since: nil) }
        await expectMoved("recoverDeleted") { try await backend.recoverDeleted([DeletedRecordRecovery(id: doomed.id, device: "laptop")], in: moved) }
        await expectMoved("purgeDeleted") { try await backend.purgeDeleted(in: moved, ids: nil) }
        let anotherClient = try await fixture.openAnotherClient()
        await expectMoved("another client's fetch") { try await anotherClient.fetchChanges(in: moved, since: token, limit: 10) }

        // The target is as it was.
        let targetAfter = try await backend.fetchAllChanges(in: target, since: nil)
        #expect(targetAfter.changed == targetBefore.changed && targetAfter.deleted == targetBefore.deleted)
        let sinceBefore = try await backend.fetchChanges(in: target, since: targetBefore.token, limit: 10)
        #expect(sinceBefore.changed.isEmpty && sinceBefore.deleted.isEmpty, "the move changed nothing in the target")

        // A retried move succeeds; a move elsewhere, or into a redirect, is refused.
        try await backend.moveZone(moved, to: target)
        await expectMoved("a move into another zone") { try await backend.moveZone(moved, to: other) }
        await expectMoved("a move into the redirect") { try await backend.moveZone(other, to: moved) }
        await expectSyncError(.invalidArguments) { try await backend.moveZone(target, to: target) }
        await expectSyncError(.zoneNotFound) { try await backend.moveZone(ZoneID("Ghost"), to: target) }
        await expectSyncError(.zoneNotFound) { try await backend.moveZone(other, to: ZoneID("Ghost")) }
        #expect(try await backend.listZones() == [other, target], "nothing refused moved anything")

        // Deleting the redirect removes it: the name is free again, for a new, empty zone.
        try await backend.deleteZone(moved)
        await expectSyncError(.zoneNotFound) { try await backend.fetchChanges(in: moved, since: nil, limit: 10) }
        await expectSyncError(.zoneNotFound) { try await backend.deleteZone(moved) }
        try await backend.createZone(moved)
        #expect(try await backend.listZones() == [moved, other, target])
        let fresh = try await backend.fetchAllChanges(in: moved, since: nil)
        #expect(fresh.changed.isEmpty && fresh.deleted.isEmpty, "a zone made again after its redirect went starts empty")
        #expect(try await backend.listDeleted(in: moved, since: nil).isEmpty)
        await expectSyncError(.changeTokenExpired) { try await backend.fetchChanges(in: moved, since: token, limit: 10) }
    }

    /// The data chunks and manifest nodes of `content` as `storeAsset` stores them.
    static func chunks(of content: Data) -> [SHA256Digest] {
        let manifest = content.withUnsafeBytes { AssetChunker(parameters: .documents).chunk($0) }
        return manifest.chunks.map(\.digest) + ManifestTree.build(manifest).nodes.map(\.ref.digest)
    }

    static func ownChunksGoAtOnce(_ fixture: BackendFixture) async throws {
        let backend = fixture.backend
        for zone in [moved, target, other] { try await backend.createZone(zone) }
        let only = Data("only the moved zone has this\n".utf8)
        let inTarget = Data("the target has this too\n".utf8)
        let elsewhere = Data("another zone has this too\n".utf8)
        let deleted = Data("deleted: in the moved zone's Recently Deleted\n".utf8)
        let replaced = Data("a version a later save replaced\n".utf8)
        let current = Data("the version that replaced it\n".utf8)
        let large = Data(SeededRandom(seed: 83).bytesArray(3 << 20))  // a manifest tree of depth 1
        func document(_ zone: ZoneID, _ path: String, _ content: Data) async throws -> Record {
            try await backend.save(try await TestRecords.document(zone, path, content: content, on: backend))
        }
        for (path, content) in [("only.txt", only), ("shared.txt", inTarget), ("elsewhere.txt", elsewhere), ("large.bin", large)] {
            _ = try await document(moved, path, content)
        }
        let gone = try await document(moved, "gone.txt", deleted)
        _ = try await backend.modifyRecords(RecordBatch(zone: moved, deletions: [RecordDeletion(id: gone.id, device: "laptop")]))
        let first = try await document(moved, "versions.txt", replaced)
        var second = try await TestRecords.document(moved, "versions.txt", content: current, on: backend, name: first.id.recordName)
        second.changeTag = first.changeTag
        _ = try await backend.save(second)
        let targetCopy = try await document(target, "shared.txt", inTarget)
        let otherCopy = try await document(other, "elsewhere.txt", elsewhere)
        let stray = Data("uploaded a moment ago, named by no record yet\n".utf8)
        try await backend.uploadChunk(SHA256Digest(hashing: stray), bytes: stray)

        let released = [only, deleted, replaced, current, large].flatMap(chunks(of:))
        let keptElsewhere = [inTarget, elsewhere].flatMap(chunks(of:)) + [SHA256Digest(hashing: stray)]
        #expect(chunks(of: large).count > 100, "the large file has many chunks and manifest nodes")
        #expect(try await backend.missingChunks(released + keptElsewhere).isEmpty, "everything was stored a moment ago")

        try await backend.moveZone(moved, to: target)

        #expect(Set(try await backend.missingChunks(released)) == Set(released),
                "the chunks and manifest nodes only the moved zone referenced are gone when the call returns, within their grace period")
        #expect(try await backend.missingChunks(keptElsewhere).isEmpty,
                "a chunk another zone references stays, and so does one no record names yet that nothing released")
        #expect(try await backend.loadAsset(try #require(targetCopy.asset)) == inTarget)
        #expect(try await backend.loadAsset(try #require(otherCopy.asset)) == elsewhere)
        #expect(try await backend.usage().chunkCount == keptElsewhere.count, "the usage counters follow")

        // A collection afterwards (the grace period still running) removes nothing more.
        try await fixture.collectGarbage()
        #expect(try await backend.missingChunks(keptElsewhere).isEmpty)
    }
}
