import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// A person's long action shows its progress in the folder's status while it runs (SPEC §15:
/// `docs-status recover` draws a bar from it), and nothing once it ends.
@Suite("the progress of a long action in the status")
struct ActivityProgressTests {
    @Test func recoveringMoreThanOneBatchShowsTheItemsDoneAsItGoes() async throws {
        let base = try TemporaryDirectory("docsync-activity")
        let local = try LocalBackend(directory: base.url.appendingPathComponent("backend"))
        let faulty = FaultInjectingBackend(wrapping: local)
        let device = try EngineDevice(name: "alpha", base: base.url, backend: faulty, deleteBrake: DeleteBrake(percent: 0))
        let count = RecordBatch.maximumItems + 50
        for index in 0..<count { try "file \(index)\n".write(to: device.file("f\(index).txt"), atomically: false, encoding: .utf8) }
        device.rescan()
        #expect(await eventually(timeout: .seconds(120)) { device.engine.isSettled && device.engine.status().items == count })
        for index in 0..<count { try FileManager.default.removeItem(at: device.file("f\(index).txt")) }
        device.rescan()
        #expect(await eventually(timeout: .seconds(120)) { device.engine.isSettled && device.engine.status().items == 0 })

        // Each backend call takes a while: the status is read between the batches.
        faulty.setPlan(FaultPlan(latency: .milliseconds(300)))
        let recovering = Task { try await device.engine.recoverDeleted(paths: [], predicate: nil, since: nil) }
        var seen: [FolderActivity] = []
        let finished = await eventually(timeout: .seconds(60), pollEvery: .milliseconds(10)) {
            if let activity = device.engine.status().activity, seen.last != activity { seen.append(activity) }
            return seen.last?.done == RecordBatch.maximumItems
        }
        let outcomes = try await recovering.value
        faulty.setPlan(FaultPlan())
        #expect(finished, "seen: \(seen)")
        #expect(outcomes.count == count && outcomes.allSatisfy(\.done))
        #expect(seen.allSatisfy { $0.action == FolderActivity.recovering && $0.total == count }, "\(seen)")
        #expect(seen.map(\.done) == seen.map(\.done).sorted(), "done only grows: \(seen)")
        #expect(seen.first?.done == 0)
        #expect(device.engine.status().activity == nil, "nothing shown once it ended")
        #expect(await eventually(timeout: .seconds(120)) { device.engine.isSettled && device.engine.status().items == count })
    }
}
