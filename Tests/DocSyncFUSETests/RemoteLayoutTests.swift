import DocSyncCore
import DocSyncEngine
import Testing

/// Which chunks a read of part of a document needs (SPEC §14).
@Suite struct RemoteLayoutTests {
    /// Chunks of 10, 20, 30 and 40 bytes: they start at 0, 10, 30 and 60; 100 bytes in all.
    static let layout: RemoteLayout = {
        let chunks = [10, 20, 30, 40].enumerated().map { index, length in
            ChunkRef(digest: SHA256Digest(hashing: Array("chunk \(index)".utf8)), length: length)
        }
        return RemoteLayout(recordName: "r", manifest: AssetManifest(chunks: chunks, contentDigest: SHA256Digest(hashing: [1])))
    }()

    @Test(arguments: [
        (0, 1, 0..<1), (0, 10, 0..<1), (9, 11, 0..<2), (10, 30, 1..<2), (10, 31, 1..<3),
        (59, 61, 2..<4), (60, 100, 3..<4), (99, 100, 3..<4), (0, 100, 0..<4), (0, 1_000, 0..<4),
        (100, 120, 0..<0), (50, 50, 0..<0),
    ] as [(Int64, Int64, Range<Int>)])
    func coveringChunks(start: Int64, end: Int64, expected: Range<Int>) {
        #expect(Self.layout.chunks(covering: start, end) == expected)
    }

    @Test func offsetsAreWhereEachChunkStarts() {
        #expect(Self.layout.offsets == [0, 10, 30, 60])
        #expect(Self.layout.size == 100)
    }

    /// Seeded: every byte of a random range is in a chunk the range's cover names, and the
    /// cover names no chunk without one of its bytes.
    @Test func coverIsExactForRandomRanges() {
        var random = SplitMix64(seed: 14)
        for _ in 0..<500 {
            let start = Int64(random.next() % 110), end = start + Int64(random.next() % 60)
            let cover = Self.layout.chunks(covering: start, end)
            for index in 0..<4 {
                let chunkStart = Self.layout.offsets[index], chunkEnd = chunkStart + Int64(Self.layout.chunks[index].length)
                let overlaps = start < end && chunkStart < min(end, 100) && start < chunkEnd
                #expect(cover.contains(index) == overlaps, "range \(start)..<\(end), chunk \(index)")
            }
        }
    }
}
