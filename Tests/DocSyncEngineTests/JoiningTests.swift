import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Logging
import Synchronization
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

    /// A late deletion cut short (the version store refuses the file once) is applied when
    /// the join is settled again: the file does not stay behind as an item of the deleted
    /// record.
    @Test func aLateDeletionCutShortIsAppliedWhenTriedAgain() async throws {
        let a = try EngineDevice(name: "alpha", base: base.url, backend: backend)
        try Self.put(["gone.txt": "deleted on alpha\n", "kept.txt": "kept\n"], in: a.folder)
        a.rescan()
        #expect(await eventually(timeout: .seconds(60)) {
            let stored = try? await storedPaths()
            return a.engine.isSettled && stored?.count == 2
        })
        try FileManager.default.removeItem(at: a.file("gone.txt"))
        a.rescan()
        #expect(await eventually(timeout: .seconds(60)) {
            let stored = try? await storedPaths()
            return a.engine.isSettled && stored == ["kept.txt"]
        })

        // Beta, on an in-memory folder, joins with the deleted file; its first move of it into
        // the version store fails.
        let clock = Mutex(Int64(1_800_000_000_000_000_000))
        let fs = MemoryFileSystem(clock: { Timestamp(nanosecondsSince1970: clock.withLock { $0 += 1_000_000; return $0 }) })
        try fs.makeDirectories("/beta/Docs")
        try fs.write(Data("deleted on alpha\n".utf8), to: "/beta/Docs/gone.txt")
        let refused = Mutex(0)
        fs.setFailing { call, path in
            guard call == .rename, path == "/beta/Docs/gone.txt" else { return nil }
            return refused.withLock { count in count += 1; return count == 1 ? EIO : nil }
        }
        var logger = Logger(label: "test.beta")
        logger.logLevel = .critical
        let configuration = EngineConfiguration(
            zone: ZoneID("Docs"), root: URL(fileURLWithPath: "/beta/Docs"), stateDirectory: base.url.appendingPathComponent("beta-state"),
            device: "beta", retryPolicy: RetryPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200), multiplier: 2))
        let beta = try FolderEngine(configuration: configuration, backend: backend, logger: logger, fileSystem: fs)
        let task = Task { await beta.run() }
        defer { task.cancel() }
        #expect(await eventually(timeout: .seconds(60)) { beta.isSettled && refused.withLock { $0 } >= 2 }, "beta tried again after the refusal")
        #expect(fs.text("/beta/Docs/gone.txt") == nil, "the stale copy left beta's folder")
        #expect(beta.status().items == 1, "beta indexes kept.txt alone")
        #expect(try await storedPaths() == ["kept.txt"], "nothing came back")
        #expect(try await backend.listDeleted(in: ZoneID("Docs"), since: nil).map(\.record.path) == [RelativePath("gone.txt")])
    }
}
