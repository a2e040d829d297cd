import DocSyncHTTP
import Testing

/// The bandwidth limit's pacing (SPEC §15): bytes booked at the rate, none when 0.
struct TransferRateLimitTests {
    @Test func pacingHoldsTheRateWithinTenPercent() async {
        let limit = TransferRateLimit(bytesPerSecond: 2_000_000)
        let started = ContinuousClock.now
        // 3 MB in 30 transfers of 100 KB: the first goes at once, the rest wait their turn.
        for _ in 0 ..< 30 { await limit.pace(100_000) }
        let elapsed = ContinuousClock.now - started
        // The last transfer may start at 1.45 s (29 × 50 ms); it has gone by 1.5 s.
        #expect(elapsed >= .milliseconds(1_400) && elapsed < .milliseconds(1_650), "\(elapsed)")
    }

    @Test func noLimitNeverWaitsAndBatchesStayWhole() async {
        let limit = TransferRateLimit()
        let started = ContinuousClock.now
        for _ in 0 ..< 1_000 { await limit.pace(10_000_000) }
        #expect(ContinuousClock.now - started < .milliseconds(500))
        #expect(limit.batchSize(atMost: 8 << 20) == 8 << 20)
    }

    @Test(arguments: [(Int64(100), 65_536), (1_000_000, 1_000_000), (50_000_000, 8 << 20)])
    func aLimitKeepsBatchesToAboutASecond(rate: Int64, batch: Int) {
        #expect(TransferRateLimit(bytesPerSecond: rate).batchSize(atMost: 8 << 20) == batch)
    }

    @Test func changingTheRateStartsAfresh() async {
        let limit = TransferRateLimit(bytesPerSecond: 1_000)
        await limit.pace(0)
        limit.bytesPerSecond = 0
        let started = ContinuousClock.now
        await limit.pace(1_000_000)
        #expect(ContinuousClock.now - started < .milliseconds(200))
    }
}
