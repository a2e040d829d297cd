import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// One test per row of SPEC §5: the fault-injecting backend produces the error, the engine
/// must show the row's behaviour and the two devices must still converge.
@Suite("SPEC §5: one behaviour per error")
struct ErrorHandlingTests {
    let base: TemporaryDirectory
    let local: LocalBackend
    let faulty: FaultInjectingBackend

    init() throws {
        base = try TemporaryDirectory("docsync-engine")
        local = try LocalBackend(directory: base.url.appendingPathComponent("backend"))
        faulty = FaultInjectingBackend(wrapping: local)
    }

    func devices(policy: ConflictPolicy = .keepBoth) throws -> (EngineDevice, EngineDevice) {
        (try EngineDevice(name: "alpha", base: base.url, backend: faulty, policy: policy),
         try EngineDevice(name: "beta", base: base.url, backend: local, policy: policy))
    }

    @Test(arguments: [SyncError.Code.networkFailure, .networkUnavailable, .serviceUnavailable, .zoneBusy])
    func transientErrorsKeepTheWorkQueuedAndRetry(_ code: SyncError.Code) async throws {
        faulty.setPlan(FaultPlan(rules: [FaultRule([.modifyRecords, .uploadChunk], .nthCall(1), .fail(SyncError(code, "injected"))),
                                         FaultRule([.modifyRecords], .nthCall(1), .dropResponse(SyncError(code, "injected")))]))
        let (a, b) = try devices()
        try a.write("report.txt", "survives \(code)\n")
        #expect(await eventually(timeout: .seconds(60)) { b.read("report.txt") == "survives \(code)\n" })
        #expect(faulty.injectedFaults >= 2)
        #expect(await eventually(timeout: .seconds(60)) { a.status.pendingUploads == 0 })
    }

    @Test func rateLimitedWaitsAtLeastRetryAfter() async throws {
        faulty.setPlan(FaultPlan(rules: [FaultRule([.modifyRecords], .nthCall(1), .fail(SyncError(.requestRateLimited, "injected", retryAfter: 0.5)))]))
        let (a, b) = try devices()
        let started = ContinuousClock.now
        try a.write("slow.txt", "patience\n")
        #expect(await eventually(timeout: .seconds(60)) { b.read("slow.txt") == "patience\n" })
        #expect(ContinuousClock.now - started >= .milliseconds(500))
        #expect(faulty.callCount(.modifyRecords) >= 2)
    }

    @Test func serverRecordChangedMergesAndPartialFailureKeepsTheGoodItems() async throws {
        let (a, b) = try devices()
        try a.write("shared.txt", "base\n")
        #expect(await eventually(timeout: .seconds(60)) { b.read("shared.txt") == "base\n" })
        // Alpha cannot fetch, so it does not learn of beta's edit: its batch (a stale edit
        // and a new file) gets serverRecordChanged for one item while the other is saved.
        #expect(await a.cutOffFromFetching(through: faulty))
        try b.write("shared.txt", "beta edit\n")
        #expect(await eventually(timeout: .seconds(60)) { b.engine.isSettled })
        try "alpha edit\n".write(to: a.file("shared.txt"), atomically: false, encoding: .utf8)
        try "alpha new\n".write(to: a.file("new-from-alpha.txt"), atomically: false, encoding: .utf8)
        a.rescan()
        #expect(await eventually(timeout: .seconds(60)) { b.read("new-from-alpha.txt") == "alpha new\n" })
        faulty.setPlan(.none)
        #expect(await eventually(timeout: .seconds(30)) { sameTrees(a, b) && a.names().count == 3 })
        let texts = Set(a.names().compactMap { a.read($0) })
        #expect(texts == ["beta edit\n", "alpha edit\n", "alpha new\n"], "\(a.names())")
        #expect(a.read("shared.txt") == "beta edit\n", "the server's version stays in place")
    }

    @Test func limitExceededSplitsTheBatch() async throws {
        faulty.setPlan(FaultPlan(rules: [FaultRule([.modifyRecords], .nthCall(1), .fail(SyncError(.limitExceeded, "injected: too large")))]))
        let (a, b) = try devices()
        for i in 0..<30 { try "file \(i)\n".write(to: a.file("f\(i).txt"), atomically: false, encoding: .utf8) }
        a.rescan()
        #expect(await eventually(timeout: .seconds(60)) { b.names().count == 30 && sameTrees(a, b) })
        #expect(faulty.callCount(.modifyRecords) >= 2)
    }

    @Test func zoneNotFoundCreatesTheZone() async throws {
        let (a, b) = try devices()
        try a.write("first.txt", "into a new zone\n")
        #expect(await eventually(timeout: .seconds(60)) { b.read("first.txt") == "into a new zone\n" })
        #expect(try await local.listZones() == [ZoneID("Docs")])
    }

    @Test func userDeletedZoneRecreatesItAndUploadsTheFolderAgain() async throws {
        let (a, b) = try devices()
        try a.write("one.txt", "1\n")
        try a.write("two.txt", "2\n")
        #expect(await eventually(timeout: .seconds(60)) { sameTrees(a, b) && b.names().count == 2 })
        try await local.deleteZone(ZoneID("Docs"))
        #expect(await eventually(timeout: .seconds(60)) {
            ((try? await local.fetchAllChanges(in: ZoneID("Docs"), since: nil).changed.count) ?? 0) == 2
        })
        try a.write("three.txt", "3\n")
        #expect(await eventually(timeout: .seconds(60)) { sameTrees(a, b) && b.names().count == 3 })
    }

    @Test func changeTokenExpiredRefetchesWithoutDuplicatesOrDeletes() async throws {
        let (a, b) = try devices()
        try a.write("stay.txt", "stays\n")
        try a.write("gone.txt", "goes\n")
        #expect(await eventually(timeout: .seconds(60)) { sameTrees(a, b) && b.names().count == 2 })
        try FileManager.default.removeItem(at: a.file("gone.txt"))
        a.rescan()
        #expect(await eventually(timeout: .seconds(60)) { b.names() == ["stay.txt"] })
        _ = try local.compactTombstones(olderThan: -1)
        try a.write("after.txt", "after\n")
        #expect(await eventually(timeout: .seconds(60)) { sameTrees(a, b) && b.names() == ["after.txt", "stay.txt"] })
        let records = try await local.fetchAllChanges(in: ZoneID("Docs"), since: nil).changed
        #expect(records.count == 2, "no duplicate records: \(records.values.map(\.path))")
    }

    @Test(arguments: [nil, AccountQuota(usedBytes: 2_000_000, quotaBytes: 1_000_000)])
    func quotaExceededStopsUploadsKeepsEverythingAndResumes(_ quota: AccountQuota?) async throws {
        faulty.setPlan(FaultPlan(rules: [FaultRule([.uploadChunk, .modifyRecords], .fromCall(1), .fail(SyncError(.quotaExceeded, "injected: full", quota: quota)))]))
        let (a, b) = try devices()
        try a.write("big-idea.txt", "kept locally\n")
        // The account's quota and the server's disk are told apart.
        let shown = quota == nil ? "backend storage full" : "account: storage full (2 MB / 1 MB)"
        #expect(await eventually(timeout: .seconds(60)) { a.status.state == .error && a.status.message?.hasPrefix(shown) == true })
        #expect(a.read("big-idea.txt") == "kept locally\n")
        #expect(b.read("big-idea.txt") == nil)
        // Retries (each upload answered after 40 ms) never show the folder as syncing with room.
        faulty.setPlan(FaultPlan(rules: [FaultRule([.uploadChunk, .modifyRecords], .fromCall(1), .fail(SyncError(.quotaExceeded, "injected: full", quota: quota)))],
                                 latency: .milliseconds(40)))
        let before = faulty.injectedFaults
        var hidden: [String] = []
        let retried = await eventually(timeout: .seconds(60), pollEvery: .milliseconds(2)) {
            let status = a.status
            if status.state != .error || status.message?.hasPrefix(shown) != true { hidden.append("\(status.state): \(status.message ?? "-")") }
            return faulty.injectedFaults >= before + 4
        }
        #expect(retried)
        #expect(hidden.isEmpty, "while retrying, the status read: \(Set(hidden))")
        faulty.setPlan(.none)
        #expect(await eventually(timeout: .seconds(60)) { b.read("big-idea.txt") == "kept locally\n" })
    }

    @Test func notAuthenticatedStopsAndShowsIt() async throws {
        faulty.setPlan(FaultPlan(rules: [FaultRule([], .fromCall(1), .fail(SyncError(.notAuthenticated, "injected: token revoked")))]))
        let (a, _) = try devices()
        try a.write("private.txt", "stays here\n")
        #expect(await eventually(timeout: .seconds(60)) { a.status.message == FolderStatus.notAuthenticated })
        #expect(a.read("private.txt") == "stays here\n")
    }

    @Test func assetFileModifiedDiscardsTheUploadAndReadsAgain() async throws {
        faulty.setPlan(FaultPlan(rules: [FaultRule([.uploadChunk], .nthCall(1), .fail(SyncError(.assetFileModified, "injected: changed while read")))]))
        let (a, b) = try devices()
        try a.write("moving.txt", "final content\n")
        #expect(await eventually(timeout: .seconds(60)) { b.read("moving.txt") == "final content\n" })
        #expect(faulty.injectedFaults == 1)
    }

    /// A remote change that moves a file and changes its content: the move is carried out,
    /// then the download fails. The index must follow the move at once, or the next scan
    /// takes the moved file for a new one and the old path for a deletion (a duplicate
    /// under a conflict name once the record comes back).
    @Test func aDownloadFailingAfterAMoveLeavesOneItem() async throws {
        let (a, b) = try devices()
        let first = String(repeating: "first version of the plan\n", count: 8_000)
        let second = String(repeating: "second version of the plan\n", count: 8_000)
        try b.write("plan.txt", first)
        #expect(await eventually(timeout: .seconds(60)) { a.read("plan.txt") == first && a.engine.isSettled })
        faulty.setPlan(FaultPlan(rules: [FaultRule([.downloadChunk], .nthCall(1), .fail(SyncError(.serviceUnavailable, "injected")))]))
        try FileManager.default.createDirectory(at: b.file("notes"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: b.file("plan.txt"), to: b.file("notes/plan.txt"))
        try b.write("notes/plan.txt", second)
        #expect(await eventually(timeout: .seconds(60)) { a.read("notes/plan.txt") == second && a.engine.isSettled && b.engine.isSettled })
        #expect(faulty.injectedFaults == 1)
        #expect(a.names() == ["notes"])
        #expect((try? FileManager.default.contentsOfDirectory(atPath: a.file("notes").path)) == ["plan.txt"])
        #expect(sameTrees(a, b))
    }
}
