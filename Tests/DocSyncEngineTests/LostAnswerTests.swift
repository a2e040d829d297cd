import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// A save whose answer is lost may have landed. What another device then does to the
/// record, and what this device does to the item before it learns of it, must be judged as
/// if the answer had come (seeds 3793 and 3891 of the simulation found both cases).
@Suite("Saves whose answer was lost")
struct LostAnswerTests {
    let base: TemporaryDirectory
    let local: LocalBackend
    let faulty: FaultInjectingBackend

    init() throws {
        base = try TemporaryDirectory("docsync-lost-answer")
        local = try LocalBackend(directory: base.url.appendingPathComponent("backend"))
        faulty = FaultInjectingBackend(wrapping: local)
    }

    // A rule counts only the calls that reach it: after the first rule's one dropped answer,
    // the second refuses every later modify.
    static let lost = SyncError(.networkFailure, "injected: response lost")
    static let down = SyncError(.networkUnavailable, "injected: down")

    /// The store's live records, read past the engines.
    func liveRecords() async throws -> [DocSyncCore.Record] {
        var records: [String: DocSyncCore.Record] = [:]
        var token: ChangeToken?
        while true {
            let page = try await local.fetchChanges(in: ZoneID("Docs"), since: token, limit: 1_000)
            for record in page.changed { records[record.id.recordName] = record }
            for id in page.deleted { records[id.recordName] = nil }
            token = page.token
            if !page.moreComing { return Array(records.values) }
        }
    }

    /// Alpha's new file lands but alpha never hears so; beta gets it and deletes it. When
    /// alpha fetches the deletion (its sends still failing), Recently Deleted shows that the
    /// deleted version is the one alpha sent: beta had it, so the deletion wins — the file
    /// goes to alpha's version store instead of coming back as an edit.
    @Test func aSaveDeletedElsewhereAfterItsAnswerWasLostStaysDeleted() async throws {
        faulty.setPlan(FaultPlan(rules: [FaultRule([.modifyRecords], .nthCall(1), .dropResponse(Self.lost)),
                                         FaultRule([.modifyRecords], .fromCall(1), .fail(Self.down)),
                                         FaultRule([.fetchRecords], .fromCall(1), .fail(Self.down))]))
        let a = try EngineDevice(name: "alpha", base: base.url, backend: faulty)
        let b = try EngineDevice(name: "beta", base: base.url, backend: local)
        try a.write("draft.txt", "written on alpha\n")
        #expect(await eventually(timeout: .seconds(60)) { b.read("draft.txt") == "written on alpha\n" && b.engine.isSettled })
        try FileManager.default.removeItem(at: b.file("draft.txt"))
        b.rescan()
        #expect(await eventually(timeout: .seconds(60)) { b.engine.isSettled && b.status.pendingUploads == 0 })
        #expect(try await liveRecords().isEmpty)
        #expect(await eventually(timeout: .seconds(60)) { a.read("draft.txt") == nil }, "the deletion reached alpha while its sends still failed")
        #expect(a.keepsVersion("written on alpha\n"))
        faulty.setPlan(FaultPlan(rules: []))
        a.rescan()
        #expect(await eventually(timeout: .seconds(60)) { a.engine.isSettled && a.status.pendingUploads == 0 })
        #expect(try await liveRecords().isEmpty)
        #expect(a.names().isEmpty && b.names().isEmpty)
    }

    /// Alpha's new file lands but alpha never hears so; beta gets it and edits it. When
    /// alpha fetches beta's edit (its sends still failing), the record's existence shows
    /// that its create landed: beta's edit was made on top of it, and replaces alpha's
    /// unchanged file — no conflict copy — with the replaced version kept.
    @Test func anEditElsewhereOnTopOfAnUnansweredCreateIsNoConflict() async throws {
        let a = try EngineDevice(name: "alpha", base: base.url, backend: faulty)
        let b = try EngineDevice(name: "beta", base: base.url, backend: local)
        #expect(await eventually(timeout: .seconds(60)) { a.engine.isSettled && b.engine.isSettled })
        faulty.setPlan(FaultPlan(rules: [FaultRule([.modifyRecords], .nthCall(1), .dropResponse(Self.lost)),
                                         FaultRule([.modifyRecords], .fromCall(1), .fail(Self.down))]))
        try a.write("draft.txt", "written on alpha\n")
        #expect(await eventually(timeout: .seconds(60)) { b.read("draft.txt") == "written on alpha\n" && b.engine.isSettled })
        try b.write("draft.txt", "edited on beta\n")
        #expect(await eventually(timeout: .seconds(60)) { a.read("draft.txt") == "edited on beta\n" }, "beta's edit reached alpha while its sends still failed")
        faulty.setPlan(FaultPlan(rules: []))
        a.rescan()
        #expect(await eventually(timeout: .seconds(60)) { a.engine.isSettled && b.engine.isSettled && a.status.pendingUploads == 0 })
        #expect(a.names() == ["draft.txt"] && b.names() == ["draft.txt"], "no conflict copy")
        #expect(a.keepsVersion("written on alpha\n"))
        #expect(sameTrees(a, b))
    }

    /// Alpha's new file lands but alpha never hears so; alpha renames it (that save fails
    /// too), then deletes it, all before it can fetch. When the record comes back as first
    /// saved, it matches the earlier of alpha's two unanswered saves: it is alpha's own, so
    /// alpha's deletion is sent against it instead of the file coming back as someone else's.
    @Test func anEarlierOfTwoUnansweredSavesIsStillTheDevicesOwn() async throws {
        let a = try EngineDevice(name: "alpha", base: base.url, backend: faulty)
        let b = try EngineDevice(name: "beta", base: base.url, backend: local)
        // Alpha joins first: a device that has never fetched sends nothing.
        #expect(await eventually(timeout: .seconds(60)) { a.engine.isSettled && b.engine.isSettled })
        faulty.setPlan(FaultPlan(rules: [FaultRule([.modifyRecords], .nthCall(1), .dropResponse(Self.lost)),
                                         FaultRule([.modifyRecords], .fromCall(1), .fail(Self.down)),
                                         FaultRule([.fetchChanges], .fromCall(1), .fail(Self.down))]))
        try a.write("draft.txt", "written on alpha\n")
        #expect(await eventually(timeout: .seconds(60)) { b.read("draft.txt") == "written on alpha\n" })
        let beforeRename = faulty.callCount(.modifyRecords)
        try FileManager.default.moveItem(at: a.file("draft.txt"), to: a.file("renamed.txt"))
        a.rescan()
        #expect(await eventually(timeout: .seconds(60)) { faulty.callCount(.modifyRecords) >= beforeRename + 2 }, "the rename was sent, and failed")
        try FileManager.default.removeItem(at: a.file("renamed.txt"))
        a.rescan()
        #expect(await eventually(timeout: .seconds(60)) { a.status.items == 0 }, "alpha saw its deletion")
        faulty.setPlan(FaultPlan(rules: []))
        a.engine.noteRemoteChange()
        #expect(await eventually(timeout: .seconds(60)) { b.names().isEmpty && a.engine.isSettled && b.engine.isSettled }, "alpha's deletion reached beta")
        #expect(a.names().isEmpty)
        #expect(try await liveRecords().isEmpty)
    }
}
