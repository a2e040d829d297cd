import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// Moving a zone out of the embedded store leaves none of its chunks' bytes in any pack
/// file (SPEC §13: "every pack that held one rewritten"), even a pack mostly full of chunks
/// that stay, which a collection would otherwise leave as it is.
@Suite struct ZoneMovePackTests {
    static let moved = ZoneID("Documents"), target = ZoneID("Sealed")

    /// `marker` repeated into a chunk's content, with a number so that each is its own.
    static func content(_ marker: String, _ number: Int, bytes: Int) -> Data {
        var text = "\(number) "
        while text.utf8.count < bytes { text += marker + " " }
        return Data(text.utf8)
    }

    /// Whether any pack file of the store holds `marker`'s bytes.
    static func packs(in directory: URL, contain marker: String) throws -> Bool {
        let packs = directory.appendingPathComponent("packs")
        let needle = Data(marker.utf8)
        return try FileManager.default.contentsOfDirectory(atPath: packs.path).contains { name in
            (try Data(contentsOf: packs.appendingPathComponent(name))).range(of: needle) != nil
        }
    }

    @Test func noPackKeepsTheBytesOfAMovedZonesChunks() async throws {
        let directory = try TemporaryDirectory("docsync-move")
        let backend = try LocalBackend(directory: directory.url, options: .init(settings: StoreSettings(collectionInterval: 0)))
        try await backend.createZone(Self.moved)
        try await backend.createZone(Self.target)
        let secret = "PLAINTEXT-OF-THE-MOVED-ZONE", kept = "CONTENT-OF-THE-TARGET"
        let live = Self.content(secret, 1, bytes: 2_000), deleted = Self.content(secret, 2, bytes: 2_000)
        let stays = Self.content(kept, 3, bytes: 200_000)
        // One upload, so one pack: mostly the target's bytes, which a collection would not rewrite.
        try await backend.uploadChunks([live, deleted, stays].map { ChunkUpload(digest: SHA256Digest(hashing: $0), bytes: $0) })
        _ = try await backend.save(TestRecords.document(Self.moved, "notes.txt", chunks: [live]))
        let gone = try await backend.save(TestRecords.document(Self.moved, "old.txt", chunks: [deleted]))
        _ = try await backend.modifyRecords(RecordBatch(zone: Self.moved, deletions: [RecordDeletion(id: gone.id, device: "laptop")]))
        let copy = try await backend.save(TestRecords.document(Self.target, "kept.txt", chunks: [stays]))
        #expect(try Self.packs(in: directory.url, contain: secret), "the moved zone's content lies in a pack before the move")

        try await backend.moveZone(Self.moved, to: Self.target)

        #expect(try !Self.packs(in: directory.url, contain: secret), "no pack file holds a byte of the moved zone's chunks")
        #expect(try Self.packs(in: directory.url, contain: kept), "the chunk that stays is still in a pack")
        #expect(try await backend.loadAsset(try #require(copy.asset)) == stays)
        let digests = [live, deleted].map { SHA256Digest(hashing: $0) }
        #expect(try await backend.missingChunks(digests) == Set(digests))
    }
}
