import DocSyncCore
import Testing

@Suite struct RetryPolicyTests {
    @Test func standardIsHalfASecondDoublingToFiveMinutes() {
        #expect(RetryPolicy.standard == RetryPolicy(initialDelay: .milliseconds(500), maximumDelay: .seconds(300), multiplier: 2))
        #expect(RetryPolicy() == .standard)
    }

    @Test(arguments: [
        (1, Duration.milliseconds(500)), (2, .seconds(1)), (3, .seconds(2)), (4, .seconds(4)), (5, .seconds(8)),
        (6, .seconds(16)), (9, .seconds(128)), (10, .seconds(256)), (11, .seconds(300)), (12, .seconds(300)),
        (100, .seconds(300)), (10_000, .seconds(300)), (Int.max, .seconds(300)), (0, .milliseconds(500)), (-5, .milliseconds(500)),
    ])
    func baseDelayGrowsAndIsCapped(attempt: Int, expected: Duration) {
        #expect(RetryPolicy.standard.baseDelay(attempt: attempt) == expected)
    }

    @Test func customPolicies() {
        let triple = RetryPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(10), multiplier: 3)
        #expect((1...5).map(triple.baseDelay(attempt:)) == [.seconds(1), .seconds(3), .seconds(9), .seconds(10), .seconds(10)])
        let flat = RetryPolicy(initialDelay: .seconds(2), maximumDelay: .seconds(10), multiplier: 0.5)
        #expect((1...3).map(flat.baseDelay(attempt:)) == [.seconds(2), .seconds(2), .seconds(2)], "a multiplier below 1 counts as 1")
        let zero = RetryPolicy(initialDelay: .zero, maximumDelay: .seconds(10))
        var random = SplitMix64(seed: 1)
        #expect(zero.delay(attempt: 50, retryAfter: nil, using: &random) == .zero)
        let inverted = RetryPolicy(initialDelay: .seconds(20), maximumDelay: .seconds(10))
        #expect(inverted.baseDelay(attempt: 1) == .seconds(10), "the maximum caps even the first delay")
    }

    @Test(arguments: 1...25)
    func jitterStaysWithinHalfToFullDelay(attempt: Int) {
        let policy = RetryPolicy.standard
        let base = policy.baseDelay(attempt: attempt)
        var random = SplitMix64(seed: UInt64(attempt))
        var delays: [Duration] = []
        for _ in 0..<500 {
            let delay = policy.delay(attempt: attempt, retryAfter: nil, using: &random)
            #expect(delay >= base / 2 && delay <= base, "\(delay) outside [\(base / 2), \(base)]")
            delays.append(delay)
        }
        // Jitter really is random: spread over the range, not stuck at one end.
        #expect(Set(delays).count > 400)
        #expect(delays.min()! < base / 2 + base / 10)
        #expect(delays.max()! > base - base / 10)
    }

    @Test func jitterBoundsHoldForOddNanoseconds() {
        let policy = RetryPolicy(initialDelay: .nanoseconds(3), maximumDelay: .nanoseconds(1_001), multiplier: 3)
        var random = SplitMix64(seed: 9)
        for attempt in 1...10 {
            let base = policy.baseDelay(attempt: attempt)
            for _ in 0..<100 {
                let delay = policy.delay(attempt: attempt, retryAfter: nil, using: &random)
                #expect(delay * 2 >= base && delay <= base, "\(delay) for \(base)")
            }
        }
    }

    @Test func sameSeedSameDelays() {
        func delays(seed: UInt64) -> [Duration] {
            var random = SplitMix64(seed: seed)
            return (1...20).map { RetryPolicy.standard.delay(attempt: $0, retryAfter: nil, using: &random) }
        }
        #expect(delays(seed: 42) == delays(seed: 42))
        #expect(delays(seed: 42) != delays(seed: 43))
    }

    @Test(arguments: [
        (1, Duration.seconds(10), Duration.seconds(10)),
        (3, .seconds(10), .seconds(10)),
        (20, .seconds(600), .seconds(600)),  // beyond maximumDelay: honoured anyway
        (1, .seconds(7200), .seconds(7200)),
    ])
    func retryAfterIsHonoured(attempt: Int, retryAfter: Duration, expected: Duration) {
        var random = SplitMix64(seed: 7)
        #expect(RetryPolicy.standard.delay(attempt: attempt, retryAfter: retryAfter, using: &random) == expected)
    }

    @Test func aShortRetryAfterIsOnlyAFloor() {
        for attempt in 1...15 {
            var random = SplitMix64(seed: UInt64(attempt))
            var same = SplitMix64(seed: UInt64(attempt))
            let floor = Duration.milliseconds(100)
            let withFloor = RetryPolicy.standard.delay(attempt: attempt, retryAfter: floor, using: &random)
            let without = RetryPolicy.standard.delay(attempt: attempt, retryAfter: nil, using: &same)
            #expect(withFloor == max(floor, without))
            #expect(withFloor >= floor)
        }
    }

    @Test func retryAfterFromAnError() {
        var random = SplitMix64(seed: 3)
        let limited = SyncError(.requestRateLimited, "slow down", retryAfter: 30)
        #expect(RetryPolicy.standard.delay(attempt: 1, after: limited, using: &random) == .seconds(30))
        let fractional = SyncError(.requestRateLimited, "slow down", retryAfter: 2.5)
        #expect(RetryPolicy.standard.delay(attempt: 1, after: fractional, using: &random) == .milliseconds(2500))
        for bad in [-1.0, .nan, .infinity, -.infinity] {
            let error = SyncError(.serviceUnavailable, "down", retryAfter: bad)
            let delay = RetryPolicy.standard.delay(attempt: 1, after: error, using: &random)
            #expect(delay <= .milliseconds(500), "retryAfter \(bad) ignored")
        }
        #expect(RetryPolicy.retryAfterDuration(seconds: 1e300) == .seconds(365 * 86_400))
        #expect(RetryPolicy.retryAfterDuration(seconds: 0) == .zero)
    }

    // MARK: - Error dispositions

    static let dispositions: [SyncError.Code: ErrorDisposition] = [
        .networkFailure: .retryWithBackoff, .networkUnavailable: .retryWithBackoff, .serviceUnavailable: .retryWithBackoff,
        .zoneBusy: .retryWithBackoff, .internalError: .retryWithBackoff,
        .requestRateLimited: .retryAfterDelay,
        .serverRecordChanged: .mergeAndResend,
        .partialFailure: .handleEachItem,
        .limitExceeded: .splitAndResend,
        .zoneNotFound: .createZoneAndResend,
        .userDeletedZone: .recreateZoneAndReupload,
        .changeTokenExpired: .refetchFromScratch,
        .quotaExceeded: .pauseUploads,
        .notAuthenticated: .stopUntilSignedIn,
        .permissionDenied: .keepLocal,
        .assetFileModified: .rereadLater,
        .zoneMoved: .followMovedZone,
        .invalidArguments: .itemError, .unknownItem: .itemError, .chunkNotFound: .itemError, .chunkCorrupt: .itemError,
        .chunkDigestMismatch: .itemError, .batchRequestFailed: .itemError,
    ]

    @Test(arguments: SyncError.Code.allCases)
    func everyCodeHasItsBehaviour(code: SyncError.Code) throws {
        let expected = try #require(Self.dispositions[code], "no expected behaviour for \(code) in this test")
        #expect(ErrorDisposition.of(code) == expected)
        #expect(ErrorDisposition.of(SyncError(code, "x")) == expected)
    }

    @Test func everyBehaviourIsUsed() {
        #expect(Set(SyncError.Code.allCases.map(ErrorDisposition.of)) == Set(ErrorDisposition.allCases))
    }

    @Test func transientCodesAreRetried() {
        for code in SyncError.Code.allCases where SyncError(code, "x").isTransient {
            #expect([.retryWithBackoff, .retryAfterDelay].contains(ErrorDisposition.of(code)), "\(code)")
        }
    }
}
