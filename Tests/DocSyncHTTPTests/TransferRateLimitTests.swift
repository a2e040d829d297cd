@testable import DocSyncHTTP
import Testing

/// The bandwidth limit's pacing (SPEC §15): bytes booked at the rate, none when 0.
struct TransferRateLimitTests {
    @Test func bookingsFollowOneAnotherAtTheRate() {
        let limit = TransferRateLimit(bytesPerSecond: 2_000_000)
        let zero = ContinuousClock.now
        // 3 MB in 30 transfers of 100 KB asked for at once: 50 ms apart, the last at 1.45 s.
        let starts = (0 ..< 30).compactMap { _ in limit.book(100_000, at: zero) }
        #expect(starts.map { ($0 - zero) / .milliseconds(1) } == (0 ..< 30).map { Double($0 * 50) })
        // One asked for after the timeline ran dry starts when asked.
        let later = zero + .seconds(10)
        #expect(limit.book(1, at: later) == later)
    }

    @Test func pacingNeverGoesFasterThanTheRate() async {
        let limit = TransferRateLimit(bytesPerSecond: 2_000_000)
        let started = ContinuousClock.now
        for _ in 0 ..< 30 { await limit.pace(100_000) }
        // The last of 30 transfers of 100 KB starts at 1.45 s at the earliest (a busy
        // machine may wake it later: the rate is a ceiling).
        #expect(ContinuousClock.now - started >= .milliseconds(1_440))
    }

    @Test func noLimitBooksNothingAndBatchesStayWhole() {
        let limit = TransferRateLimit()
        #expect((0 ..< 1_000).allSatisfy { _ in limit.book(10_000_000, at: .now) == nil })
        #expect(limit.batchSize(atMost: 8 << 20) == 8 << 20)
    }

    @Test(arguments: [(Int64(100), 65_536), (1_000_000, 1_000_000), (50_000_000, 8 << 20)])
    func aLimitKeepsBatchesToAboutASecond(rate: Int64, batch: Int) {
        #expect(TransferRateLimit(bytesPerSecond: rate).batchSize(atMost: 8 << 20) == batch)
    }

    @Test func changingTheRateStartsAfresh() {
        let limit = TransferRateLimit(bytesPerSecond: 1_000)
        let now = ContinuousClock.now
        #expect(limit.book(10_000, at: now) == now)
        #expect(limit.book(1, at: now) == now + .seconds(10), "the next waits 10 s at 1 KB/s")
        limit.bytesPerSecond = 2_000
        let later = ContinuousClock.now
        #expect(limit.book(1, at: later) == later, "a new rate starts a new timeline")
        limit.bytesPerSecond = 0
        #expect(limit.book(1_000_000, at: later) == nil)
    }
}
