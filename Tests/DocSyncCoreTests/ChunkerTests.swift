import DocSyncCore
import DocSyncPlatform
import DocSyncTestSupport
import Foundation
import Testing

@Suite struct ChunkerTests {
    let parameters = ChunkerParameters.documents

    func chunk(_ bytes: [UInt8]) -> AssetManifest {
        bytes.withUnsafeBytes { AssetChunker().chunk($0) }
    }

    @Test func emptyInputHasNoChunks() {
        let manifest = chunk([])
        #expect(manifest.chunks.isEmpty)
        #expect(manifest.size == 0)
        #expect(manifest.contentDigest.hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test(arguments: [1, 100, 4096, 4097, 20_000, 65_536, 65_537, 300_000, 1_000_003])
    func chunksCoverTheInputWithinTheSizeBounds(size: Int) {
        var random = SeededRandom(seed: UInt64(size))
        let bytes = random.bytes(size)
        var ranges: [Range<Int>] = []
        let manifest = bytes.withUnsafeBytes { AssetChunker().chunk($0) { _, range in ranges.append(range) } }
        #expect(manifest.size == Int64(size))
        #expect(manifest.contentDigest == SHA256Digest(hashing: bytes))
        #expect(ranges.first?.lowerBound == 0 && ranges.last?.upperBound == size)
        for (previous, next) in zip(ranges, ranges.dropFirst()) { #expect(previous.upperBound == next.lowerBound) }
        for (ref, range) in zip(manifest.chunks, ranges) {
            #expect(ref.length == range.count)
            #expect(ref.digest == SHA256Digest(hashing: bytes[range]))
            #expect(range.count <= parameters.maximumSize)
        }
        // At least the minimum, except the last chunk and one right after a forced cut.
        for (previous, range) in zip([0..<0] + ranges, ranges).dropLast() where previous.count < parameters.maximumSize {
            #expect(range.count >= parameters.minimumSize)
        }
    }

    @Test func boundariesAreDeterministicAndPinned() {
        // The chunk format: these lengths must never change, or every stored file re-chunks.
        var random = SeededRandom(seed: 2026)
        let bytes = random.bytes(200_000)
        let lengths = chunk(bytes).chunks.map(\.length)
        #expect(lengths == chunk(bytes).chunks.map(\.length))
        #expect(lengths == ChunkerTests.pinnedLengths, "chunk boundaries changed: \(lengths)")
        #expect(GearTable.standard.values[0] == ChunkerTests.pinnedGear.first && GearTable.standard.values[255] == ChunkerTests.pinnedGear.last)
    }

    static let pinnedLengths = [6012, 4164, 4874, 8131, 2118, 8054, 4559, 4113, 11196, 2871, 2237, 5202, 12597, 4236, 3597, 6354, 8613, 10303, 4047, 2962, 14417, 3500, 4789, 6161, 4361, 2799, 5748, 6898, 11544, 12943, 7468, 3132]
    static let pinnedGear: [UInt64] = [0xd180_1354_5e31_99d6, 0x61be_9f48_f27d_5030]

    @Test func averageChunkSizeIsNearTheTarget() {
        var random = SeededRandom(seed: 5)
        let manifest = chunk(random.bytes(8 << 20))
        let average = Double(manifest.size) / Double(manifest.chunks.count)
        // Candidates every 4 KiB, none within 2 KiB of another: about 6.8 KiB on random data.
        #expect(average > 5_500 && average < 8_500, "average chunk \(average)")
    }

    @Test func uniformDataCutsAtTheMaximumAndDeduplicates() {
        let manifest = chunk([UInt8](repeating: 0, count: 1 << 20))
        #expect(manifest.chunks.dropLast().allSatisfy { $0.length == parameters.maximumSize })
        #expect(manifest.distinctChunks.count == 1)
    }

    @Test(arguments: [1, 7, 64, 1000, 65_536, 1 << 20])
    func streamingMatchesInMemory(readSize: Int) throws {
        var random = SeededRandom(seed: 11)
        let bytes = random.bytes(700_001)
        var offset = 0
        var streamed: [ChunkRef] = []
        let manifest = try AssetChunker(bufferSize: 0).chunk(read: { (buffer: UnsafeMutableRawBufferPointer) throws(SyncError) -> Int in
            let count = min(readSize, buffer.count, bytes.count - offset)
            bytes.withUnsafeBytes { source in
                buffer.baseAddress!.copyMemory(from: source.baseAddress! + offset, byteCount: count)
            }
            offset += count
            return count
        }, onChunk: { (ref: ChunkRef, chunk: UnsafeRawBufferPointer) throws(SyncError) in
            #expect(SHA256Digest(hashing: chunk) == ref.digest)
            streamed.append(ref)
        })
        #expect(manifest == chunk(bytes))
        #expect(streamed == manifest.chunks)
    }

    @Test(arguments: [0, 1, 100, 2_048, 8_191, 40_000, 200_000])
    func theContentDigestIsTheWholeContentsHash(size: Int) throws {
        var random = SeededRandom(seed: UInt64(size) + 1)
        let bytes = random.bytes(size)
        let manifest = chunk(bytes)
        #expect(manifest.contentDigest == SHA256Digest(hashing: bytes))
        var offset = 0
        let streamed = AssetChunker().chunk(read: { (buffer: UnsafeMutableRawBufferPointer) -> Int in
            let count = min(buffer.count, bytes.count - offset)
            bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
            offset += count
            return count
        }, onChunk: { _, _ in })
        #expect(streamed == manifest)
    }
}
