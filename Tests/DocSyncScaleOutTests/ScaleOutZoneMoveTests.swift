import DocSyncCore
import DocSyncS3
import DocSyncScaleOut
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import NIOCore
import Testing

/// Moving a zone out of the scale-out store leaves none of its chunks' bytes in any object
/// of the bucket (SPEC §13: "every pack that held one rewritten"), even in a young pack
/// mostly full of chunks that stay, which a collection would otherwise leave as it is.
@Suite struct ScaleOutZoneMoveTests {
    static let moved = ZoneID("Documents"), target = ZoneID("Sealed")

    /// `marker` repeated into a chunk's content, with a number so that each is its own.
    static func content(_ marker: String, _ number: Int, bytes: Int) -> Data {
        var text = "\(number) "
        while text.utf8.count < bytes { text += marker + " " }
        return Data(text.utf8)
    }

    /// Whether any object of the bucket holds `marker`'s bytes.
    static func objects(of storage: ScaleOutTestStorage, contain marker: String) async throws -> Bool {
        let objects = S3Client(configuration: storage.bucket, logger: ScaleOutTestStorage.logger)
        for object in try await objects.listAllObjects(prefix: "") {
            let bytes = Data(try await objects.getObject(object.key).readableBytesView)
            if bytes.range(of: Data(marker.utf8)) != nil { return true }
        }
        return false
    }

    @Test func noObjectKeepsTheBytesOfAMovedZonesChunks() async throws {
        let storage = try await ScaleOutTestStorage.make()
        try await closing(storage.close) {
            let store = try await storage.open()
            let backend = store.backend(account: try #require(try await store.accountID(named: "ana", create: true)))
            try await backend.createZone(Self.moved)
            try await backend.createZone(Self.target)
            let secret = "PLAINTEXT-OF-THE-MOVED-ZONE", kept = "CONTENT-OF-THE-TARGET"
            let live = Self.content(secret, 1, bytes: 2_000), deleted = Self.content(secret, 2, bytes: 2_000)
            let stays = Self.content(kept, 3, bytes: 200_000)
            // One upload, so one pack: young, and mostly the target's bytes.
            try await backend.uploadChunks([live, deleted, stays].map { ChunkUpload(digest: SHA256Digest(hashing: $0), bytes: $0) })
            _ = try await backend.save(TestRecords.document(Self.moved, "notes.txt", chunks: [live]))
            let gone = try await backend.save(TestRecords.document(Self.moved, "old.txt", chunks: [deleted]))
            _ = try await backend.modifyRecords(RecordBatch(zone: Self.moved, deletions: [RecordDeletion(id: gone.id, device: "laptop")]))
            let copy = try await backend.save(TestRecords.document(Self.target, "kept.txt", chunks: [stays]))
            #expect(try await Self.objects(of: storage, contain: secret), "the moved zone's content lies in the bucket before the move")

            try await backend.moveZone(Self.moved, to: Self.target)

            #expect(try await !Self.objects(of: storage, contain: secret), "no object holds a byte of the moved zone's chunks")
            #expect(try await Self.objects(of: storage, contain: kept), "the chunk that stays is still in a pack")
            #expect(try await backend.loadAsset(try #require(copy.asset)) == stays)
            let digests = [live, deleted].map { SHA256Digest(hashing: $0) }
            #expect(try await backend.missingChunks(digests) == Set(digests))
            #expect(try await backend.usage().chunkBytes == Int64(stays.count))
        }
    }
}
