import DocSyncCore
import DocSyncPlatform
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// Each fault the wrapper can inject, behaving as documented.
@Suite struct FaultInjectingBackendTests {
    let zone = ZoneID("Documents")
    /// Lives as long as the test (one suite instance per test).
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory("docsync-faults") }

    /// A fresh local backend with the zone, wrapped with `plan`.
    func makeBackend(_ plan: FaultPlan) async throws -> (FaultInjectingBackend, LocalBackend) {
        let local = try LocalBackend(directory: directory.url.appendingPathComponent(RecordID.newName()))
        try await local.createZone(zone)
        return (FaultInjectingBackend(wrapping: local, plan: plan), local)
    }

    @Test func failsExactlyTheNthCallWithTheChosenError() async throws {
        let plan = FaultPlan(rules: [FaultRule([.listZones], .nthCall(3), .fail(SyncError(.serviceUnavailable, "injected")))])
        let (backend, _) = try await makeBackend(plan)
        _ = try await backend.listZones()
        _ = try await backend.usage()  // other operations are not counted by the rule
        _ = try await backend.listZones()
        await expectSyncError(.serviceUnavailable) { try await backend.listZones() }
        _ = try await backend.listZones()
        #expect(backend.injectedFaults == 1)
        #expect(backend.callCount(.listZones) == 4)
    }

    @Test func fromCallFailsEveryLaterCall() async throws {
        let plan = FaultPlan(rules: [FaultRule([], .fromCall(2), .fail(SyncError(.notAuthenticated, "injected")))])
        let (backend, _) = try await makeBackend(plan)
        _ = try await backend.listZones()
        for _ in 0..<3 { await expectSyncError(.notAuthenticated) { try await backend.usage() } }
        backend.setPlan(.none)
        _ = try await backend.usage()
    }

    @Test func seededFractionIsRepeatableAndNearItsRate() async throws {
        func failures(seed: UInt64) async throws -> [Bool] {
            let plan = FaultPlan(rules: [FaultRule([.missingChunks], .fraction(0.3), .fail(SyncError(.networkFailure, "injected")))], seed: seed)
            let (backend, _) = try await makeBackend(plan)
            var outcome: [Bool] = []
            for _ in 0..<200 {
                do { _ = try await backend.missingChunks([]); outcome.append(false) } catch { outcome.append(true) }
            }
            return outcome
        }
        let first = try await failures(seed: 7)
        let again = try await failures(seed: 7)
        let other = try await failures(seed: 8)
        #expect(first == again, "same seed, same faults")
        #expect(first != other)
        let rate = Double(first.filter { $0 }.count) / Double(first.count)
        #expect(rate > 0.15 && rate < 0.45, "rate \(rate) is far from 0.3")
    }

    @Test func latencyDelaysEveryCall() async throws {
        let (backend, _) = try await makeBackend(FaultPlan(latency: .milliseconds(40)))
        let start = ContinuousClock.now
        for _ in 0..<3 { _ = try await backend.listZones() }
        #expect(ContinuousClock.now - start >= .milliseconds(120))
    }

    @Test func rateLimitAnswersWithRetryAfter() async throws {
        let plan = FaultPlan(rateLimit: .init(calls: 2, per: .seconds(60), retryAfter: 1.5))
        let (backend, _) = try await makeBackend(plan)
        _ = try await backend.listZones()
        _ = try await backend.listZones()
        let error = await expectSyncError(.requestRateLimited) { try await backend.listZones() }
        #expect(error?.retryAfter == 1.5)
    }

    @Test func onASimulatedClockLatencyMovesTheClockAndWindowsFollowIt() async throws {
        let clock = SimulatedClock()
        let local = try LocalBackend(directory: directory.url.appendingPathComponent(RecordID.newName()))
        // An hour per call: were it slept, the test could not end (a loaded run may take seconds anyway).
        let plan = FaultPlan(latency: .seconds(3600), rateLimit: .init(calls: 2, per: .seconds(86_400), retryAfter: 1.5))
        let backend = FaultInjectingBackend(wrapping: local, plan: plan, clock: clock)
        let wall = ContinuousClock.now
        _ = try await backend.listZones()
        _ = try await backend.listZones()
        #expect(ContinuousClock.now - wall < .seconds(600), "latency is not slept")
        #expect(clock.now.nanosecondsSince1970 == SimulatedClock.defaultStart.nanosecondsSince1970 + 7_200_000_000_000, "each call moved the clock by its latency")
        await expectSyncError(.requestRateLimited) { try await backend.listZones() }
        clock.advance(by: .seconds(86_400))
        _ = try await backend.listZones()  // a new window on the simulated clock
    }

    @Test func droppedResponseStillAppliedTheSave() async throws {
        let plan = FaultPlan(rules: [FaultRule([.modifyRecords], .nthCall(1), .dropResponse(SyncError(.networkFailure, "injected: response lost")))])
        let (backend, local) = try await makeBackend(plan)
        let record = TestRecords.folder(zone, "maybe-saved")
        await expectSyncError(.networkFailure) { try await backend.save(record) }
        // The client does not know; the server has it. Resending the same save tells it so.
        let onServer = try #require(try await local.fetchRecords([record.id])[record.id])
        #expect(TestRecords.stripped(onServer) == record)
        let resent = await expectSyncError(.serverRecordChanged) { try await backend.save(record) }
        #expect(resent.flatMap { $0.serverRecord.map(TestRecords.stripped) } == record, "the server record shows the save landed")
    }

    @Test func droppedChunkUploadIsSafeToRepeat() async throws {
        let plan = FaultPlan(rules: [FaultRule([.uploadChunk], .nthCall(1), .dropResponse(SyncError(.networkFailure, "injected")))])
        let (backend, _) = try await makeBackend(plan)
        let bytes = Data("chunk".utf8)
        let digest = SHA256Digest(hashing: bytes)
        await expectSyncError(.networkFailure) { try await backend.uploadChunk(digest, bytes: bytes) }
        try await backend.uploadChunk(digest, bytes: bytes)
        #expect(try await backend.usage().chunkCount == 1)
    }
}
