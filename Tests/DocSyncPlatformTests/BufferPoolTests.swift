import DocSyncCore
import DocSyncPlatform
import Foundation
import DocSyncTestSupport
import Testing

@Suite struct BufferPoolTests {
    @Test(arguments: [
        (0, 4096), (1, 4096), (4096, 4096), (4097, 8192), (65_535, 65_536), (65_536, 65_536), (65_537, 131_072),
        (10 << 20, 16 << 20), ((10 << 20) + 1, 16 << 20), (64 << 20, 64 << 20), ((64 << 20) + 1, (64 << 20) + 4096),
    ])
    func buffersArePowersOfTwoFromAPageUpTo64MiB(asked: Int, handed: Int) {
        let pool = BufferPool(quietPeriod: .seconds(600))
        let buffer = pool.take(asked)
        defer { pool.giveBack(buffer) }
        #expect(buffer.count == handed)
        #expect(UInt(bitPattern: buffer.baseAddress) % 4096 == 0)
        // The whole buffer is usable.
        buffer.storeBytes(of: 0xAB, toByteOffset: buffer.count - 1, as: UInt8.self)
        #expect(buffer.load(fromByteOffset: buffer.count - 1, as: UInt8.self) == 0xAB)
    }

    @Test func aBufferGivenBackIsHandedOutAgainForTheSameSize() {
        let pool = BufferPool(quietPeriod: .seconds(600))
        let first = pool.take(10_000)
        pool.giveBack(first)
        #expect(pool.idleBytes == 16_384)
        let other = pool.take(70_000)  // another size: a new buffer
        let again = pool.take(9_000)
        #expect(again.baseAddress == first.baseAddress)
        #expect(pool.idleBytes == 0)
        pool.giveBack(again)
        pool.giveBack(other)
        #expect(pool.idleBytes == 16_384 + 131_072)
        pool.releaseIdle()
        #expect(pool.idleBytes == 0)
    }

    @Test func aDataHoldsItsBufferUntilTheLastSliceIsGone() throws {
        let pool = BufferPool(quietPeriod: .seconds(600))
        var slice: Data?
        do {
            let data = pool.data(count: 100_000) { raw in
                for i in 0..<90_000 { raw[i] = UInt8(truncatingIfNeeded: i &* 31) }
                return 90_000
            }
            #expect(data.count == 90_000)
            #expect(data.enumerated().allSatisfy { $0.element == UInt8(truncatingIfNeeded: $0.offset &* 31) })
            slice = data[1000..<1010]
            #expect(pool.idleBytes == 0)
        }
        #expect(pool.idleBytes == 0)
        #expect(slice?.first == UInt8(truncatingIfNeeded: 1000 &* 31))
        slice = nil
        #expect(pool.idleBytes == 131_072)
    }

    @Test func aFillThatThrowsOrWritesNothingGivesTheBufferBack() {
        struct Refused: Error {}
        let pool = BufferPool(quietPeriod: .seconds(600))
        #expect(throws: Refused.self) { _ = try pool.data(count: 5000) { _ throws(Refused) -> Int in throw Refused() } }
        #expect(pool.idleBytes == 8192)
        let empty = pool.data(count: 5000) { _ in 0 }
        #expect(empty.isEmpty)
        #expect(pool.idleBytes == 8192)
    }

    @Test func idleBuffersBeyondTheLimitAndOversizedOnesAreUnmapped() {
        let pool = BufferPool(idleLimit: 65_536, quietPeriod: .seconds(600))
        let buffers = (0..<3).map { _ in pool.take(32_768) }
        for buffer in buffers { pool.giveBack(buffer) }
        #expect(pool.idleBytes == 65_536)
        pool.giveBack(pool.take((64 << 20) + 1))
        #expect(pool.idleBytes == 65_536)
    }

    @Test func idleBuffersAreReleasedOnceThePoolIsQuiet() async throws {
        let pool = BufferPool(quietPeriod: .milliseconds(50))
        pool.giveBack(pool.take(1 << 20))
        pool.giveBack(pool.take(1 << 16))
        // Deadlines far above the quiet period: a loaded test run can keep this task off the
        // CPU for seconds (a full run here once took 14 s to get through both waits).
        #expect(await eventually(timeout: .seconds(30), pollEvery: .milliseconds(10)) { pool.idleBytes == 0 })
        // The pool still works afterwards, and schedules another release.
        pool.giveBack(pool.take(4096))
        #expect(await eventually(timeout: .seconds(30), pollEvery: .milliseconds(10)) { pool.idleBytes == 0 })
    }
}
