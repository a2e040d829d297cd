import DocSyncCore
import DocSyncPlatform
import DocSyncStorage
import Foundation
import Testing

/// The conformance cases of Recently Deleted, replaced versions and garbage collection
/// (SPEC §4a): what a backend keeps, for how long, and that a collection takes nothing
/// kept while it takes what is not.
extension Conformance {
    /// Settings for the cases that collect: a collection takes any unreferenced chunk at once.
    static let collectingAtOnce = StoreSettings(deletedRetention: 3600, collectionInterval: 0, collectionGrace: 0)
    /// Settings for the expiry case: kept versions expire after a second.
    static let expiringAfterASecond = StoreSettings(deletedRetention: 1, collectionInterval: 0, collectionGrace: 0)

    static func deletionIsKept(_ fixture: BackendFixture, _ zone: ZoneID) async throws {
        let backend = fixture.backend
        try await backend.createZone(zone)
        let content = Data(SeededRandom(seed: 21).bytesArray(200_000))
        let document = try await backend.save(try await TestRecords.document(zone, "a/report.pdf", content: content, on: backend))
        let folder = try await backend.save(TestRecords.folder(zone, "a"))
        let before = Timestamp.now
        let result = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [
            RecordDeletion(id: document.id, baseTag: document.changeTag, device: "laptop"), RecordDeletion(id: folder.id, device: "desk"),
        ]))
        let after = Timestamp.now
        #expect(result.failed.isEmpty && result.deleted == [document.id, folder.id])
        #expect(try await backend.fetchRecords([document.id, folder.id]).isEmpty)

        let listed = try await backend.listDeleted(in: zone, since: nil)
        #expect(Set(listed.map(\.record.id)) == [document.id, folder.id])
        let entry = try #require(listed.first { $0.record.id == document.id })
        #expect(entry.record == document, "the last version, with its change tag")
        #expect(entry.deletedBy == "laptop")
        #expect(before <= entry.deletedAt && entry.deletedAt <= after, "deleted at \(entry.deletedAt), between \(before) and \(after)")
        #expect(listed.first { $0.record.id == folder.id }?.deletedBy == "desk")

        // A collection takes an unreferenced chunk, and leaves the deleted record's.
        let orphan = try await uploadOrphan(backend, seed: 22)
        try await fixture.collectGarbage()
        await expectSyncError(.chunkNotFound) { try await backend.downloadChunk(orphan) }
        #expect(try await backend.loadAsset(try #require(document.asset)) == content)
        // Deleting what is gone changes nothing.
        #expect(try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: document.id, device: "other")])).deleted == [document.id])
        #expect(try await backend.listDeleted(in: zone, since: nil).first { $0.record.id == document.id }?.deletedBy == "laptop")
    }

    static func newestFirstAndSince(_ backend: any StorageBackend, _ zone: ZoneID) async throws {
        try await backend.createZone(zone)
        var times: [String: Timestamp] = [:]
        var records: [String: Record] = [:]
        for name in ["first", "second", "third"] {
            let record = try await backend.save(TestRecords.folder(zone, name))
            records[name] = record
            _ = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: record.id, device: "d")]))
            times[name] = try #require(try await backend.listDeleted(in: zone, since: nil).first { $0.record.id == record.id }?.deletedAt)
        }
        #expect(try await backend.listDeleted(in: zone, since: nil).map(\.record.path.string) == ["third", "second", "first"])
        #expect(try await backend.listDeleted(in: zone, since: times["second"]).map(\.record.path.string) == ["third", "second"])
        let afterLast = Timestamp(nanosecondsSince1970: times["third"]!.nanosecondsSince1970 + 1)
        #expect(try await backend.listDeleted(in: zone, since: afterLast).isEmpty)

        // Deleted, recovered and deleted again: listed once, with its latest deletion.
        let first = records["first"]!
        let recovered = try await backend.recoverDeleted([DeletedRecordRecovery(id: first.id, device: "d")], in: zone)
        let live = try #require(recovered.saved[first.id])
        _ = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: first.id, device: "again")]))
        let listed = try await backend.listDeleted(in: zone, since: nil)
        #expect(listed.map(\.record.path.string) == ["first", "third", "second"])
        #expect(listed[0].deletedBy == "again" && listed[0].record == live)

        let ghost = ZoneID("Ghost")
        await expectSyncError(.zoneNotFound) { try await backend.listDeleted(in: ghost, since: nil) }
        await expectSyncError(.zoneNotFound) { try await backend.recoverDeleted([DeletedRecordRecovery(id: RecordID(zone: ghost, recordName: "x"), device: "d")], in: ghost) }
        await expectSyncError(.zoneNotFound) { try await backend.purgeDeleted(in: ghost, ids: nil) }
    }

    static func recoverReachesEveryDevice(_ fixture: BackendFixture, _ zone: ZoneID) async throws {
        let backend = fixture.backend
        try await backend.createZone(zone)
        let content = Data(SeededRandom(seed: 31).bytesArray(120_000))
        let document = try await backend.save(try await TestRecords.document(zone, "notes/plan.txt", content: content, on: backend))
        let folder = try await backend.save(TestRecords.folder(zone, "notes"))
        let link = try await backend.save(TestRecords.symlink(zone, "notes/link", target: "plan.txt"))
        let beforeDeletion = try await backend.fetchAllChanges(in: zone, since: nil).token
        _ = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [document, folder, link].map { RecordDeletion(id: $0.id, device: "laptop") }))
        let afterDeletion = try await backend.fetchAllChanges(in: zone, since: beforeDeletion)
        #expect(afterDeletion.deleted == [document.id, folder.id, link.id])

        // Another device recovers two of them: one at its last path, one elsewhere.
        let other = try await fixture.openAnotherClient()
        let result = try await other.recoverDeleted([
            DeletedRecordRecovery(id: document.id, device: "desktop"),
            DeletedRecordRecovery(id: folder.id, path: RelativePath("notes (recovered)"), device: "desktop"),
        ], in: zone)
        #expect(result.failed.isEmpty && Set(result.saved.keys) == [document.id, folder.id])
        let back = try #require(result.saved[document.id])
        #expect(back.path == document.path && back.lastModifiedBy == "desktop" && back.contentDigest == document.contentDigest)
        #expect(back.changeTag != nil && back.changeTag != document.changeTag, "a recovered record has a new change tag")
        #expect(result.saved[folder.id]?.path == RelativePath("notes (recovered)"))
        #expect(try await backend.loadAsset(try #require(back.asset)) == content)
        #expect(try await backend.fetchRecords([document.id])[document.id] == back)

        // Devices fetch them like any save; the one left deleted stays deleted.
        let since = try await backend.fetchAllChanges(in: zone, since: afterDeletion.token)
        #expect(since.changed == result.saved && since.deleted.isEmpty)
        let fromBefore = try await backend.fetchAllChanges(in: zone, since: beforeDeletion)
        #expect(Set(fromBefore.changed.keys) == [document.id, folder.id] && fromBefore.deleted == [link.id])
        #expect(try await backend.listDeleted(in: zone, since: nil).map(\.record.id) == [link.id])
    }

    static func recoverRefusals(_ backend: any StorageBackend, _ zone: ZoneID) async throws {
        try await backend.createZone(zone)
        let gone = try await backend.save(TestRecords.folder(zone, "gone"))
        let again = try await backend.save(TestRecords.folder(zone, "again"))
        let purged = try await backend.save(TestRecords.folder(zone, "purged"))
        let left = try await backend.save(TestRecords.folder(zone, "left"))
        _ = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [gone, again, purged, left].map { RecordDeletion(id: $0.id, device: "d") }))
        #expect(try await backend.purgeDeleted(in: zone, ids: [purged.id]) == 1)
        let savedAgain = try await backend.save(TestRecords.folder(zone, "again", name: again.id.recordName))  // the edit that wins
        #expect(try await backend.listDeleted(in: zone, since: nil).map(\.record.id).contains(again.id) == false, "a record saved again is no longer deleted")

        let never = RecordID(zone: zone, recordName: "never-existed")
        let elsewhere = RecordID(zone: ZoneID("Elsewhere"), recordName: gone.id.recordName)
        let result = try await backend.recoverDeleted([
            DeletedRecordRecovery(id: never, device: "d"),
            DeletedRecordRecovery(id: purged.id, device: "d"),
            DeletedRecordRecovery(id: again.id, device: "d"),
            DeletedRecordRecovery(id: elsewhere, device: "d"),
            DeletedRecordRecovery(id: gone.id, device: "d"),
        ], in: zone)
        #expect(result.failed[never]?.code == .unknownItem)
        #expect(result.failed[purged.id]?.code == .unknownItem)
        #expect(result.failed[again.id]?.code == .serverRecordChanged)
        #expect(result.failed[again.id]?.serverRecord == savedAgain)
        #expect(result.failed[elsewhere]?.code == .invalidArguments)
        #expect(Array(result.saved.keys) == [gone.id], "the good item stands whatever the others do")
        #expect(result.failed[gone.id] == nil)
        // Recovered already: it lives.
        let twice = try await backend.recoverDeleted([DeletedRecordRecovery(id: gone.id, device: "d")], in: zone)
        #expect(twice.failed[gone.id]?.code == .serverRecordChanged)
        #expect(try await backend.listDeleted(in: zone, since: nil).map(\.record.id) == [left.id])

        let tooMany = (0 ... RecordBatch.maximumItems).map { DeletedRecordRecovery(id: RecordID(zone: zone, recordName: "r\($0)"), device: "d") }
        await expectSyncError(.limitExceeded) { try await backend.recoverDeleted(tooMany, in: zone) }
    }

    static func purgeSomeOrAll(_ fixture: BackendFixture, _ zone: ZoneID) async throws {
        let backend = fixture.backend
        try await backend.createZone(zone)
        var documents: [Record] = []
        for index in 0 ..< 3 {
            let content = Data(SeededRandom(seed: 40 + UInt64(index)).bytesArray(60_000))
            documents.append(try await backend.save(try await TestRecords.document(zone, "d\(index).bin", content: content, on: backend)))
        }
        let folder = try await backend.save(TestRecords.folder(zone, "f"))
        _ = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: (documents + [folder]).map { RecordDeletion(id: $0.id, device: "d") }))
        let digests = try await documents.asyncMap { try await assetDigests(try #require($0.asset), on: backend) }

        #expect(try await backend.purgeDeleted(in: zone, ids: [documents[0].id, RecordID(zone: zone, recordName: "unknown")]) == 1)
        #expect(Set(try await backend.listDeleted(in: zone, since: nil).map(\.record.id)) == Set([documents[1].id, documents[2].id, folder.id]))
        try await fixture.collectGarbage()
        for digest in digests[0] { await expectSyncError(.chunkNotFound) { try await backend.downloadChunk(digest) } }
        #expect(try await backend.missingChunks(digests[1] + digests[2]).isEmpty, "what is still in Recently Deleted keeps its chunks")

        #expect(try await backend.purgeDeleted(in: zone, ids: nil) == 3)
        #expect(try await backend.listDeleted(in: zone, since: nil).isEmpty)
        #expect(try await backend.purgeDeleted(in: zone, ids: nil) == 0)
        try await fixture.collectGarbage()
        #expect(Set(try await backend.missingChunks(digests[1] + digests[2])) == Set(digests[1] + digests[2]))
        #expect(try await backend.usage().chunkCount == 0)
        let late = try await backend.recoverDeleted([DeletedRecordRecovery(id: documents[1].id, device: "d")], in: zone)
        #expect(late.failed[documents[1].id]?.code == .unknownItem)
    }

    static func replacedVersionsKeepTheirChunks(_ fixture: BackendFixture, _ zone: ZoneID) async throws {
        let backend = fixture.backend
        try await backend.createZone(zone)
        let small = Data(SeededRandom(seed: 51).bytesArray(90_000))
        let large = Data(SeededRandom(seed: 52).bytesArray(3 << 20))  // a manifest tree
        let newest = Data(SeededRandom(seed: 53).bytesArray(70_000))
        let v1 = try await backend.save(try await TestRecords.document(zone, "file.bin", content: small, on: backend))
        let largeAsset = try await backend.storeAsset(large)
        #expect(largeAsset.reference.depth == 1)
        let v2 = try await backend.save(replacingContent(of: v1, with: largeAsset.reference))
        let newestAsset = try await backend.storeAsset(newest)
        _ = try await backend.save(replacingContent(of: v2, with: newestAsset.reference))

        let orphan = try await uploadOrphan(backend, seed: 54)
        try await fixture.collectGarbage()
        await expectSyncError(.chunkNotFound) { try await backend.downloadChunk(orphan) }
        #expect(try await backend.loadAsset(try #require(v1.asset)) == small, "a replaced version's chunks stay")
        #expect(try await backend.loadAsset(largeAsset.reference) == large, "and its manifest nodes with what they list")
        #expect(try await backend.loadAsset(newestAsset.reference) == newest)
    }

    static func keptVersionsExpire(_ fixture: BackendFixture, _ zone: ZoneID) async throws {
        let backend = fixture.backend
        try await backend.createZone(zone)
        let replaced = Data(SeededRandom(seed: 61).bytesArray(80_000))
        let live = Data(SeededRandom(seed: 62).bytesArray(70_000))
        let deleted = Data(SeededRandom(seed: 63).bytesArray(3 << 20))  // a manifest tree
        let v1 = try await backend.save(try await TestRecords.document(zone, "kept.bin", content: replaced, on: backend))
        let liveAsset = try await backend.storeAsset(live)
        _ = try await backend.save(replacingContent(of: v1, with: liveAsset.reference))
        let doomed = try await backend.save(try await TestRecords.document(zone, "doomed.bin", content: deleted, on: backend))
        let doomedDigests = try await assetDigests(try #require(doomed.asset), on: backend)
        let replacedDigests = try await assetDigests(try #require(v1.asset), on: backend)
        _ = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: doomed.id, device: "d")]))
        #expect(try await backend.listDeleted(in: zone, since: nil).map(\.record.id) == [doomed.id])

        let expired = try await eventually(timeout: .seconds(20), pollEvery: .milliseconds(100)) { try await backend.listDeleted(in: zone, since: nil).isEmpty }
        #expect(expired, "a deletion is listed no longer than the retention (1 s)")
        let late = try await backend.recoverDeleted([DeletedRecordRecovery(id: doomed.id, device: "d")], in: zone)
        #expect(late.failed[doomed.id]?.code == .unknownItem)
        try await fixture.collectGarbage()
        #expect(Set(try await backend.missingChunks(doomedDigests + replacedDigests)) == Set(doomedDigests + replacedDigests),
                "expired versions' chunks and manifest nodes are collected")
        #expect(try await backend.loadAsset(liveAsset.reference) == live)
        let usage = try await backend.usage()
        #expect(usage.chunkCount == liveAsset.reference.entries.count && usage.chunkBytes == Int64(live.count),
                "only the live record's chunks are left: \(usage)")
    }

    /// `record` (its change tag kept) with the content `reference` stands for.
    static func replacingContent(of record: Record, with reference: AssetReference) -> Record {
        var next = record
        next.asset = reference
        next.contentDigest = reference.contentDigest
        next.size = reference.size
        return next
    }

    /// Uploads a chunk nothing references; returns its digest.
    static func uploadOrphan(_ backend: any StorageBackend, seed: UInt64) async throws -> SHA256Digest {
        let bytes = Data(SeededRandom(seed: seed).bytesArray(10_000))
        let digest = SHA256Digest(hashing: bytes)
        try await backend.uploadChunk(digest, bytes: bytes)
        return digest
    }

    /// Every chunk an asset is stored as: its data chunks and its manifest nodes.
    static func assetDigests(_ reference: AssetReference, on backend: any StorageBackend) async throws -> [SHA256Digest] {
        let manifest = try await ManifestTree.expand(reference) { refs throws(SyncError) in try await backend.downloadChunks(refs.map(\.digest)) }
        return manifest.chunks.map(\.digest) + Array(ManifestTree.nodesByDigest(of: manifest).keys)
    }
}

extension SeededRandom {
    /// `count` bytes of a fresh generator (for one-line test data).
    func bytesArray(_ count: Int) -> [UInt8] {
        var copy = self
        return copy.bytes(count)
    }
}

extension Array {
    /// The elements transformed one after another by an async `transform`.
    public func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
