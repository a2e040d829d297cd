import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// SPEC §4a "Joining never deletes", and its counterpart: a joining device does not bring
/// back what others deleted. Two in-process devices on one embedded store: alpha syncs and
/// deletes, then beta joins with a stale backup of the folder.
@Suite("SPEC §4a: a joining device")
struct JoiningTests {
    let base: TemporaryDirectory
    let backend: LocalBackend

    init() throws {
        base = try TemporaryDirectory("docsync-joining")
        backend = try LocalBackend(directory: base.url.appendingPathComponent("backend"))
    }

    /// The store's live records' paths, sorted.
    func storedPaths() async throws -> [String] {
        try await backend.fetchAllChanges(in: ZoneID("Docs"), since: nil).changed.values.map(\.path.string).sorted()
    }

    /// Writes `files` (path → text) into `folder`, making directories as needed.
    static func put(_ files: [String: String], in folder: URL) throws {
        for (path, text) in files {
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: false, encoding: .utf8)
        }
    }

    @Test func aStaleBackupDoesNotBringBackWhatWasDeletedElsewhere() async throws {
        let a = try EngineDevice(name: "alpha", base: base.url, backend: backend)
        try Self.put(["gone.txt": "deleted on alpha\n", "edited.txt": "before\n", "kept.txt": "kept\n", "trip/p1.jpg": "photo 1\n", "trip/p2.jpg": "photo 2\n"],
                     in: a.folder)
        a.rescan()
        #expect(await eventually(timeout: .seconds(60)) {
            let stored = try? await storedPaths()
            return a.engine.isSettled && stored?.count == 6
        })
        for path in ["gone.txt", "edited.txt", "trip"] { try FileManager.default.removeItem(at: a.file(path)) }
        a.rescan()
        #expect(await eventually(timeout: .seconds(60)) {
            let stored = try? await storedPaths()
            return a.engine.isSettled && stored == ["kept.txt"]
        })

        // Beta joins with a backup made before the deletions: the same deleted files, one of
        // them edited since, one copied to another name, and a file of its own.
        let stale = base.url.appendingPathComponent("beta-folder")
        try Self.put(["gone.txt": "deleted on alpha\n", "edited.txt": "edited in the backup\n", "kept.txt": "kept\n",
                      "trip/p1.jpg": "photo 1\n", "trip/p2.jpg": "photo 2\n", "copy of gone.txt": "deleted on alpha\n",
                      "new.txt": "only in the backup\n"], in: stale)
        let b = try EngineDevice(name: "beta", base: base.url, backend: backend)
        let expected = ["copy of gone.txt", "edited.txt", "kept.txt", "new.txt"]
        #expect(await eventually(timeout: .seconds(60)) {
            let stored = try? await storedPaths()
            return b.engine.isSettled && a.engine.isSettled && stored.map { Set(expected).isSubset(of: $0) } == true
        }, "beta sent its edit and its new files")
        #expect(try await storedPaths() == expected, "what alpha deleted stays deleted; the edit beats the deletion")
        #expect(b.names() == expected, "beta's stale copies left its folder")
        #expect(b.keepsVersion("deleted on alpha\n") && b.keepsVersion("photo 1\n") && b.keepsVersion("photo 2\n"),
                "beta keeps them in its version store")
        #expect(b.read("edited.txt") == "edited in the backup\n")
        #expect(await eventually(timeout: .seconds(60)) { sameTrees(a, b) && a.engine.isSettled }, "alpha gets the edit and the new files")
        #expect(a.read("edited.txt") == "edited in the backup\n" && a.read("new.txt") == "only in the backup\n")
        #expect(b.status.items == 4 && b.status.pendingUploads == 0)
    }
}
