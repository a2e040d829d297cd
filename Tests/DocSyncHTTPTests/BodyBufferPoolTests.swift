import DocSyncHTTP
import DocSyncTestSupport
import NIOCore
import Testing

/// Batch bodies are reused once nothing holds them, never overwritten while something does,
/// and let go when the pool goes quiet.
@Suite struct BodyBufferPoolTests {
    static func address(_ buffer: ByteBuffer) -> UnsafeRawPointer? {
        buffer.withVeryUnsafeBytes { UnsafeRawPointer($0.baseAddress) }
    }

    @Test func aTakenBufferIsEmptyWithTheCapacityAskedFor() {
        let pool = BodyBufferPool()
        var used = pool.take(capacity: 1000)
        used.writeBytes([UInt8](repeating: 7, count: 1000))
        pool.keep(used)
        used = ByteBuffer()
        let again = pool.take(capacity: 5000)
        #expect(again.readableBytes == 0)
        #expect(again.capacity >= 5000)
    }

    @Test func aBufferNothingElseHoldsIsReused() {
        let pool = BodyBufferPool()
        var body = pool.take(capacity: 1 << 20)
        body.writeBytes([UInt8](repeating: 1, count: 1 << 20))
        let storage = Self.address(body)
        pool.keep(body)
        body = ByteBuffer()
        let reused = pool.take(capacity: 1 << 20)
        #expect(Self.address(reused) == storage)
        #expect(pool.idleCount == 0)
    }

    @Test func aBufferStillBeingSentIsNotOverwritten() {
        let pool = BodyBufferPool()
        var body = pool.take(capacity: 64)
        body.writeBytes([UInt8](repeating: 1, count: 64))
        let inFlight = body  // what the connection still holds
        pool.keep(body)
        body = ByteBuffer()
        var next = pool.take(capacity: 64)
        next.writeBytes([UInt8](repeating: 2, count: 64))
        #expect(Self.address(next) != Self.address(inFlight))
        #expect(inFlight.readableBytesView.allSatisfy { $0 == 1 })
    }

    @Test func atMostLimitBuffersAreKept() {
        let pool = BodyBufferPool(limit: 3)
        for _ in 0..<5 { pool.keep(ByteBufferAllocator().buffer(capacity: 16)) }
        #expect(pool.idleCount == 3)
    }

    @Test func aQuietPoolLetsItsBuffersGo() async {
        let pool = BodyBufferPool(limit: 4, quietPeriod: .milliseconds(50))
        pool.keep(ByteBufferAllocator().buffer(capacity: 16))
        pool.keep(ByteBufferAllocator().buffer(capacity: 16))
        #expect(pool.idleCount == 2)
        #expect(await eventually(timeout: .seconds(60)) { pool.idleCount == 0 })
    }
}
