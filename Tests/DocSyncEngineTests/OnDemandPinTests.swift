import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// SPEC §14 on the engine: pins (download pins, evict and unpin release), what the cache limit
/// may evict, and a placeholder moved being its item moved.
@Suite("On-demand pins and placeholder moves")
struct OnDemandPinTests {
    let base: TemporaryDirectory
    let backend: LocalBackend

    init() throws {
        base = try TemporaryDirectory("docsync-pins")
        backend = try LocalBackend(directory: base.url.appendingPathComponent("backend"))
    }

    @Test func pinsKeepFilesLocalAndOutOfTheEvictableOnes() async throws {
        let a = try EngineDevice(name: "alpha", base: base.url, backend: backend)
        let b = try EngineDevice(name: "beta", base: base.url, backend: backend, onDemand: true)
        defer { a.stop(); b.stop() }
        try FileManager.default.createDirectory(at: a.file("d"), withIntermediateDirectories: true)
        for name in ["d/one.txt", "d/two.txt", "three.txt"] { try a.write(name, "content of \(name)\n") }
        #expect(await eventually(timeout: .seconds(60)) {
            FileManager.default.fileExists(atPath: b.file(".three.txt.docsync").path) && b.engine.isSettled
        })
        #expect(b.engine.evictableDocuments().isEmpty, "nothing is local yet")

        // pin a folder: its files are downloaded and pinned; the one outside is not
        let pinned = await b.engine.perform(.pin([RelativePath("d")]))
        #expect(pinned.map(\.path).sorted() == ["d/one.txt", "d/two.txt"] && pinned.allSatisfy(\.done), "\(pinned)")
        #expect(b.read("d/one.txt") == "content of d/one.txt\n")
        #expect(b.engine.isPinned(RelativePath("d/one.txt")) && !b.engine.isPinned(RelativePath("three.txt")))
        #expect(b.engine.evictableDocuments().isEmpty, "pinned files are never evictable")
        #expect(b.engine.localContentSize() == Int64("content of d/one.txt\n".utf8.count * 2))

        // unpin one: it may be evicted now; evict it: a placeholder again, and unpinned
        #expect(await b.engine.perform(.unpin([RelativePath("d/one.txt")])).map(\.done) == [true])
        #expect(b.engine.evictableDocuments().map(\.path) == [RelativePath("d/one.txt")])
        #expect(await b.engine.perform(.evict([RelativePath("d/two.txt")])).map(\.done) == [true])
        #expect(!b.engine.isPinned(RelativePath("d/two.txt")))

        // download pins; makeLocal (a program writing through the mount) does not
        #expect(await b.engine.perform(.download([RelativePath("d/two.txt")])).map(\.done) == [true])
        #expect(b.engine.isPinned(RelativePath("d/two.txt")))
        #expect(await b.engine.perform(.makeLocal([RelativePath("three.txt")])).map(\.done) == [true])
        #expect(b.read("three.txt") == "content of three.txt\n" && !b.engine.isPinned(RelativePath("three.txt")))
        #expect(await b.engine.perform(.pin([RelativePath("nowhere.txt")])).map(\.done) == [false])
    }

    @Test func aPlaceholderMovedIsItsItemMovedAndStaysRemote() async throws {
        let a = try EngineDevice(name: "alpha", base: base.url, backend: backend)
        let b = try EngineDevice(name: "beta", base: base.url, backend: backend, onDemand: true)
        defer { a.stop(); b.stop() }
        try FileManager.default.createDirectory(at: a.file("old"), withIntermediateDirectories: true)
        try a.write("old/inner.txt", "inner\n")
        try a.write("file.txt", "file\n")
        #expect(await eventually(timeout: .seconds(60)) {
            FileManager.default.fileExists(atPath: b.file("old/.inner.txt.docsync").path)
                && FileManager.default.fileExists(atPath: b.file(".file.txt.docsync").path) && b.engine.isSettled
        })
        // moved as the mount moves them: the placeholder file, and a folder holding one
        try FileManager.default.moveItem(at: b.file(".file.txt.docsync"), to: b.file(".renamed.txt.docsync"))
        try FileManager.default.moveItem(at: b.file("old"), to: b.file("new"))
        b.rescan()
        #expect(await eventually(timeout: .seconds(60)) {
            a.read("renamed.txt") == "file\n" && a.read("new/inner.txt") == "inner\n" && a.read("file.txt") == nil && b.engine.isSettled
        })
        #expect(a.read("old/inner.txt") == nil)
        // still not local on beta, and still placeholders after a full comparison
        b.rescan()
        #expect(await eventually(timeout: .seconds(60)) { b.engine.isSettled })
        #expect(b.read("renamed.txt") == nil && b.read("new/inner.txt") == nil)
        #expect((try b.engine.item(at: RelativePath("renamed.txt")))?.downloadingStatus == "notDownloaded")
        #expect((try b.engine.item(at: RelativePath("new/inner.txt")))?.downloadingStatus == "notDownloaded")
        #expect(a.read("renamed.txt") == "file\n" && a.read("new/inner.txt") == "inner\n", "nothing deleted after the rescan")
    }
}
