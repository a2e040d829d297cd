import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// SPEC §4a, README exit 4: a path named for `recover` that has nothing in Recently Deleted
/// is no such item, and the engine says why — purged since this device saw it deleted, not
/// deleted at all, or unknown here.
@Suite("Recover: a named path with nothing in Recently Deleted")
struct RecoverNamedPathTests {
    @Test func aNamedPathSaysWhyItCannotBeRecovered() async throws {
        let base = try TemporaryDirectory("docsync-recover-named")
        let backend = try LocalBackend(directory: base.url.appendingPathComponent("backend"))
        let a = try EngineDevice(name: "alpha", base: base.url, backend: backend)
        let b = try EngineDevice(name: "beta", base: base.url, backend: backend)
        for name in ["purged.txt", "kept.txt", "live.txt"] { try a.write(name, "\(name)\n") }
        #expect(await eventually(timeout: .seconds(60)) { b.read("live.txt") == "live.txt\n" && a.engine.isSettled && b.engine.isSettled })
        for name in ["purged.txt", "kept.txt"] { try FileManager.default.removeItem(at: a.file(name)) }
        a.rescan()
        #expect(await eventually(timeout: .seconds(60)) { b.names() == ["live.txt"] && a.engine.isSettled && b.engine.isSettled })
        #expect(try await b.engine.unrecoverable(paths: [RelativePath("purged.txt"), RelativePath("kept.txt")]).isEmpty, "both are in Recently Deleted")

        let purged = try await a.engine.purgeDeleted(paths: [RelativePath("purged.txt")], predicate: nil, since: nil)
        #expect(purged.map(\.path) == ["purged.txt"])
        let onBeta = try await b.engine.unrecoverable(paths: ["purged.txt", "kept.txt", "never.txt", "live.txt"].map { RelativePath($0) })
        #expect(onBeta.count == 3, "\(onBeta)")
        #expect(onBeta.first?.hasPrefix("Docs/purged.txt was deleted and is no longer in Recently Deleted (purged") == true, "beta saw it deleted: \(onBeta)")
        #expect(onBeta.dropFirst().first == "no such item in Recently Deleted: Docs/never.txt")
        #expect(onBeta.last?.hasPrefix("Docs/live.txt is not deleted") == true)
        // Alpha deleted it itself and kept no copy: to it, it is unknown.
        #expect(try await a.engine.unrecoverable(paths: [RelativePath("purged.txt")]) == ["no such item in Recently Deleted: Docs/purged.txt"])
    }
}
