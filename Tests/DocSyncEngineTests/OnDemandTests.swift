import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// SPEC §6 on-demand folders and the actions of `docs-status` (download, evict, restore),
/// with two in-process devices: a mirror ("alpha") and an on-demand folder ("beta").
@Suite("On-demand files and actions")
struct OnDemandTests {
    let base: TemporaryDirectory
    let backend: LocalBackend

    init() throws {
        base = try TemporaryDirectory("docsync-ondemand")
        backend = try LocalBackend(directory: base.url.appendingPathComponent("backend"))
    }

    func devices() throws -> (mirror: EngineDevice, onDemand: EngineDevice) {
        (try EngineDevice(name: "alpha", base: base.url, backend: backend),
         try EngineDevice(name: "beta", base: base.url, backend: backend, onDemand: true))
    }

    func item(_ device: EngineDevice, _ path: String) -> ItemStatus? {
        (try? device.engine.item(at: RelativePath(path))) ?? nil
    }

    @Test func remoteFilesArriveAsPlaceholdersAndRoundTripThroughDownloadAndEvict() async throws {
        let (a, b) = try devices()
        let content = String(repeating: "report line\n", count: 20_000)  // 240 KB, several chunks
        try FileManager.default.createDirectory(at: a.file("docs"), withIntermediateDirectories: true)
        try a.write("docs/report.txt", content)
        let placeholder = b.file("docs/.report.txt.docsync")
        #expect(await eventually(timeout: .seconds(60)) { FileManager.default.fileExists(atPath: placeholder.path) && b.engine.isSettled })
        #expect(b.read("docs/report.txt") == nil, "the content is not downloaded")
        // The placeholder has the document's size, as a hole: its status is the document's.
        let shown = try FileManager.default.attributesOfItem(atPath: placeholder.path)
        #expect((shown[.size] as? Int) == content.utf8.count)
        #expect(try Data(contentsOf: placeholder).allSatisfy { $0 == 0 })
        let remote = try #require(item(b, "docs/report.txt"))
        #expect(remote.downloadingStatus == "notDownloaded")
        #expect(remote.size == Int64(content.utf8.count), "queries see the document's real size")

        // download → the content replaces the placeholder
        let downloaded = await b.engine.perform(.download([RelativePath("docs/report.txt")]))
        #expect(downloaded == [ActionOutcome(folder: "Docs", path: "docs/report.txt", done: true)])
        #expect(b.read("docs/report.txt") == content)
        #expect(!FileManager.default.fileExists(atPath: placeholder.path))
        #expect(item(b, "docs/report.txt")?.downloadingStatus == "current")

        // evict → a placeholder again; nothing is uploaded, nothing lost anywhere
        let chunksBefore = try await backend.usage().chunkCount
        let evicted = await b.engine.perform(.evict([RelativePath("docs/report.txt")]))
        #expect(evicted.map(\.done) == [true])
        #expect(b.read("docs/report.txt") == nil)
        #expect(FileManager.default.fileExists(atPath: placeholder.path))
        #expect(item(b, "docs/report.txt")?.downloadingStatus == "notDownloaded")
        b.rescan()
        #expect(await eventually(timeout: .seconds(60)) { b.engine.isSettled && a.engine.isSettled })
        #expect(a.read("docs/report.txt") == content, "evicting never deletes on other devices")
        #expect(try await backend.usage().chunkCount == chunksBefore)

        // and back once more
        #expect(await b.engine.perform(.download([RelativePath("docs/report.txt")])).map(\.done) == [true])
        #expect(b.read("docs/report.txt") == content)
    }

    @Test func evictingWhatIsNotUploadedIsRefusedWithAReason() async throws {
        let (a, b) = try devices()
        defer { a.stop() }
        b.stop()  // beta's engine is not running: a new local file stays un-uploaded
        let lone = try EngineDevice(name: "gamma", base: base.url, backend: FaultInjectingBackend(wrapping: backend, plan: FaultPlan(rules: [
            FaultRule([.modifyRecords], .fromCall(1), .fail(SyncError(.networkUnavailable, "injected"))),
        ])))
        try lone.write("draft.txt", "not yet on the server\n")
        lone.rescan()
        #expect(await eventually(timeout: .seconds(60)) { item(lone, "draft.txt") != nil })
        let refused = await lone.engine.perform(.evict([RelativePath("draft.txt"), RelativePath("missing.txt")]))
        #expect(refused.map(\.done) == [false, false])
        #expect(refused[0].message?.contains("not uploaded") == true)
        #expect(refused[1].message == "no such item")
        #expect(lone.read("draft.txt") == "not yet on the server\n")
        lone.stop()
    }

    @Test func deletingAPlaceholderDeletesTheItemEverywhere() async throws {
        let (a, b) = try devices()
        try a.write("old.txt", "obsolete\n")
        #expect(await eventually(timeout: .seconds(60)) { FileManager.default.fileExists(atPath: b.file(".old.txt.docsync").path) && b.engine.isSettled })
        try FileManager.default.removeItem(at: b.file(".old.txt.docsync"))
        b.engine.noteLocal([.removed(".old.txt.docsync")])
        #expect(await eventually(timeout: .seconds(60)) { a.read("old.txt") == nil && a.engine.isSettled && b.engine.isSettled })
        #expect(item(b, "old.txt") == nil)
    }

    @Test func remoteChangesMoveAndUpdatePlaceholdersWithoutDownloading() async throws {
        let (a, b) = try devices()
        try a.write("a.txt", "one\n")
        #expect(await eventually(timeout: .seconds(60)) { FileManager.default.fileExists(atPath: b.file(".a.txt.docsync").path) })
        try FileManager.default.createDirectory(at: a.file("sub"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: a.file("a.txt"), to: a.file("sub/b.txt"))
        try a.write("sub/b.txt", "one, edited\n")
        a.rescan()
        #expect(await eventually(timeout: .seconds(60)) {
            FileManager.default.fileExists(atPath: b.file("sub/.b.txt.docsync").path) && !FileManager.default.fileExists(atPath: b.file(".a.txt.docsync").path)
                && item(b, "sub/b.txt")?.size == 12
        })
        #expect(b.read("sub/b.txt") == nil)
        // A remote deletion removes the placeholder.
        try FileManager.default.removeItem(at: a.file("sub/b.txt"))
        a.rescan()
        #expect(await eventually(timeout: .seconds(60)) { !FileManager.default.fileExists(atPath: b.file("sub/.b.txt.docsync").path) && item(b, "sub/b.txt") == nil })
    }

    @Test func restoreBringsAKeptVersionBackAsANewLocalChange() async throws {
        let (a, b) = try devices()
        b.stop()
        try a.write("notes.txt", "first\n")
        #expect(await eventually(timeout: .seconds(60)) { a.engine.isSettled && item(a, "notes.txt")?.isUploaded == true })
        try FileManager.default.removeItem(at: a.file("notes.txt"))
        a.rescan()
        #expect(await eventually(timeout: .seconds(60)) { a.engine.isSettled && item(a, "notes.txt") == nil })
        // A deletion made here is not in the version store; a mirror on another device keeps it.
        let mirror = try EngineDevice(name: "delta", base: base.url, backend: backend)
        try mirror.write("notes.txt", "second\n")
        #expect(await eventually(timeout: .seconds(60)) { a.read("notes.txt") == "second\n" && a.engine.isSettled })
        try mirror.write("notes.txt", "third\n")
        #expect(await eventually(timeout: .seconds(60)) { a.read("notes.txt") == "third\n" && a.engine.isSettled })
        let versions = try a.engine.versionEntries(at: RelativePath("notes.txt"))
        #expect(versions.first?.reason == "overwritten")
        let restored = await a.engine.perform(.restore(RelativePath("notes.txt"), version: nil))
        #expect(restored.map(\.done) == [true], "\(restored)")
        #expect(a.read("notes.txt") == "second\n")
        #expect(await eventually(timeout: .seconds(60)) { mirror.read("notes.txt") == "second\n" && mirror.engine.isSettled })
        // What restore replaced was kept too.
        #expect(try a.engine.versionEntries(at: RelativePath("notes.txt")).count == versions.count + 1)
        mirror.stop()
    }
}
