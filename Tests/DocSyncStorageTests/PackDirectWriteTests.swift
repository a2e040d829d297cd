import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// An embedded store's packs are written past the page cache (`DirectFileWriter`) and hold
/// exactly their chunks.
@Suite struct PackDirectWriteTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("docsync-direct-pack") }

    @Test func aPackWrittenDirectlyServesEveryChunk() async throws {
        let backend = try LocalBackend(directory: directory.url.appendingPathComponent("backend"))
        var generator = SplitMix64(seed: 5)
        let uploads = (0..<50).map { index -> ChunkUpload in
            let bytes = Data((0..<(index * 997 + 1)).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
            return ChunkUpload(digest: SHA256Digest(hashing: bytes), bytes: bytes)
        }
        try await backend.uploadChunks(uploads)
        let loaded = try await backend.downloadChunks(uploads.map(\.digest))
        for upload in uploads { #expect(loaded[upload.digest] == upload.bytes) }
        let packs = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/backend/packs")
        let sizes = try packs.map { try FileManager.default.attributesOfItem(atPath: directory.path + "/backend/packs/" + $0)[.size] as! Int }
        // One pack, cut back to the chunks' bytes (no padding left at its end).
        #expect(sizes == [uploads.reduce(0) { $0 + $1.bytes.count }])
    }
}
