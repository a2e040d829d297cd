@testable import DocSyncScaleOut
import DocSyncCore
import DocSyncStorage
import Foundation
import NIOCore
import Testing

/// Which ranged GETs read a set of chunks.
@Suite struct PackReadPlanTests {
    func digest(_ n: Int) -> SHA256Digest { SHA256Digest(hashing: Data("\(n)".utf8)) }

    @Test(arguments: [
        // (offsets and lengths in one pack, merge gap, expected ranges)
        ([(0, 10), (10, 10), (20, 10)], Int64(0), [0 ..< 30]),
        ([(0, 10), (15, 10)], Int64(4), [0 ..< 10, 15 ..< 25]),
        ([(0, 10), (15, 10)], Int64(5), [0 ..< 25]),
        ([(100, 10), (0, 10)], Int64(0), [0 ..< 10, 100 ..< 110]),
    ] as [([(Int64, Int)], Int64, [Range<Int64>])])
    func rangesOfOnePack(_ chunks: [(Int64, Int)], gap: Int64, expected: [Range<Int64>]) {
        var places: [SHA256Digest: ScaleOutBackend.ChunkPlace] = [:]
        for (index, (offset, length)) in chunks.enumerated() {
            places[digest(index)] = ScaleOutBackend.ChunkPlace(objectKey: "packs/1/a", offset: offset, length: length)
        }
        let plans = PackReadPlan.make(places, mergeGap: gap)
        #expect(plans.map(\.range) == expected)
        #expect(plans.flatMap(\.chunks).count == chunks.count, "every chunk is read once")
    }

    @Test func packsAreReadSeparately() {
        let places = [digest(1): ScaleOutBackend.ChunkPlace(objectKey: "packs/1/a", offset: 0, length: 5),
                      digest(2): ScaleOutBackend.ChunkPlace(objectKey: "packs/1/b", offset: 0, length: 5)]
        #expect(Set(PackReadPlan.make(places, mergeGap: 1 << 20).map(\.objectKey)) == ["packs/1/a", "packs/1/b"])
    }

    @Test func aChunkWhoseBytesDoNotMatchIsCorrupt() throws {
        let good = Data("good".utf8), other = Data("evil".utf8)
        let plan = PackReadPlan(objectKey: "k", range: 10 ..< 18, chunks: [.init(digest: SHA256Digest(hashing: good), offset: 10, length: 4),
                                                                            .init(digest: SHA256Digest(hashing: good), offset: 14, length: 4)])
        var bytes = ByteBuffer(bytes: good + other)
        #expect(throws: SyncError.self) { try plan.verifiedChunks(in: bytes) }
        bytes = ByteBuffer(bytes: good + good)
        #expect(try plan.verifiedChunks(in: bytes).values.first == good)
    }
}
