@testable import DocSyncScaleOut
import DocSyncCore
import DocSyncS3
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import NIOCore
import PostgresNIO
import Testing

/// A collection of one account (`docsync-server gc --user NAME`) collects that account and
/// nothing of any other: not their expired Recently Deleted, chunks, packs or stray objects.
@Suite struct ScaleOutAccountCollectionTests {
    let zone = ZoneID("Docs")

    /// What `garbage(in:)` left in one account: a document deleted (in Recently Deleted,
    /// expired at once) whose chunk nothing else keeps, a chunk never referenced, and an
    /// object in the account's part of the bucket that no pack names.
    struct Garbage {
        let backend: ScaleOutBackend
        let orphan: String
    }

    func garbage(in store: ScaleOutStore, named name: String, objects: S3Client) async throws -> Garbage {
        let account = try #require(try await store.accountID(named: name, create: true))
        let backend = store.backend(account: account)
        try await backend.createZone(zone)
        let kept = Data("\(name)'s deleted document".utf8), stray = Data("\(name)'s chunk nothing names".utf8)
        try await backend.uploadChunks([kept, stray].map { ChunkUpload(digest: SHA256Digest(hashing: $0), bytes: $0) })
        var record = TestRecords.folder(zone, "gone.txt")
        let ref = ChunkRef(digest: SHA256Digest(hashing: kept), length: kept.count)
        record.type = .document
        record.mode = 0o644
        record.size = Int64(kept.count)
        record.contentDigest = SHA256Digest(hashing: kept)
        record.asset = AssetReference(depth: 0, entries: [ref], chunkCount: 1, size: Int64(kept.count), contentDigest: record.contentDigest!)
        let saved = try await backend.save(record)
        _ = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: saved.id)]))
        let orphan = "packs/\(account)/left-behind"
        try await objects.putObject(orphan, ByteBuffer(string: "what an upload that died left"))
        return Garbage(backend: backend, orphan: orphan)
    }

    /// The rows of Recently Deleted the account keeps, expired or not (a listing leaves
    /// out the expired ones, which are all of them here: retention 0).
    func deletedRows(of backend: ScaleOutBackend, in store: ScaleOutStore) async throws -> Int64 {
        let account = backend.account
        return try await store.withConnection("count Recently Deleted") { connection in
            var count: Int64 = 0
            for try await rows in try await connection.query("SELECT count(*) FROM deleted_record WHERE account = \(account)", logger: ScaleOutTestStorage.logger)
                .decode(Int64.self) { count = rows }
            return count
        }
    }

    @Test func collectingOneAccountLeavesEveryOtherAsItWas() async throws {
        let storage = try await ScaleOutTestStorage.make(settings: StoreSettings(deletedRetention: 0, collectionInterval: 0, collectionGrace: 0))
        do {
            let store = try await storage.open()
            let objects = S3Client(configuration: storage.bucket, logger: ScaleOutTestStorage.logger)
            let ana = try await garbage(in: store, named: "ana", objects: objects)
            let bob = try await garbage(in: store, named: "bob", objects: objects)
            #expect(try await deletedRows(of: bob.backend, in: store) == 1)
            #expect(try await waitUntilPast([ana.orphan, bob.orphan], in: objects))

            let report = try await ScaleOutCollector(store: store).collect(account: ana.backend.account)
            #expect(report.ran && report.stoppedBecause == nil)
            #expect(report.expiredDeletedRecords == 1, "ana's expired Recently Deleted only")
            #expect(report.chunksRemoved == 2, "ana's two chunks only: \(report.summary)")
            #expect(report.packsRemoved == 2, "ana's emptied pack and her stray object: \(report.summary)")
            #expect(try await ana.backend.usage().chunkCount == 0)
            #expect(try await objects.headObject(ana.orphan) == nil)

            #expect(try await deletedRows(of: ana.backend, in: store) == 0)
            #expect(try await deletedRows(of: bob.backend, in: store) == 1, "bob's Recently Deleted is untouched")
            #expect(try await bob.backend.usage().chunkCount == 2, "bob's chunks are untouched")
            #expect(try await objects.headObject(bob.orphan) != nil, "bob's stray object is untouched")
            #expect(try await store.lastCollection() == nil, "not every account has been collected")

            let everyone = try await ScaleOutCollector(store: store).collect()
            #expect(everyone.expiredDeletedRecords == 1 && everyone.chunksRemoved == 2 && everyone.packsRemoved == 2, "bob's, left for it: \(everyone.summary)")
            #expect(try await objects.headObject(bob.orphan) == nil)
            #expect(try await store.lastCollection() != nil)
        } catch {
            await storage.close()
            throw error
        }
        await storage.close()
    }
}
