import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// Changes made while daemons were stopped, conflicts between them, and crashes.
@Suite("Offline changes, conflicts and crashes", .serialized)
struct OfflineAndCrashTests {
    @Test func offlineChangesAreFoundAtStartUp() async throws {
        let pair = try DevicePair()
        try pair.startBoth()
        let a = pair.a
        for name in ["keep.txt", "edit.txt", "delete.txt", "rename.txt"] {
            try "original \(name)\n".write(to: a.file(name), atomically: false, encoding: .utf8)
        }
        await pair.converge("initial files")
        let renamedRecord = try await pair.records().first { $0.value == "rename.txt" }?.key
        #expect(await a.stop() == 0)
        try overwrite(a.file("edit.txt"), "edited while stopped\n")
        try FileManager.default.removeItem(at: a.file("delete.txt"))
        try FileManager.default.moveItem(at: a.file("rename.txt"), to: a.file("renamed.txt"))
        try "created while stopped\n".write(to: a.file("new.txt"), atomically: false, encoding: .utf8)
        let chunksBefore = try await pair.storedChunkCount()
        try a.start()
        await pair.converge("offline changes")
        #expect(contents(pair.b.file("edit.txt")) == "edited while stopped\n")
        #expect(contents(pair.b.file("renamed.txt")) == "original rename.txt\n")
        #expect(!FileManager.default.fileExists(atPath: pair.b.file("delete.txt").path))
        // The edit and the new file bring new chunks; the rename brings none and keeps its record.
        #expect(try await pair.storedChunkCount() == chunksBefore + 2)
        #expect(try await pair.records()[renamedRecord ?? ""] == "renamed.txt")
        await pair.stopBoth()
    }

    @Test func theSameFileEditedOnBothSidesWhileStoppedKeepsBoth() async throws {
        let pair = try DevicePair()
        try pair.startBoth()
        try "base\n".write(to: pair.a.file("report.txt"), atomically: false, encoding: .utf8)
        await pair.converge("initial file")
        await pair.stopBoth()
        try overwrite(pair.a.file("report.txt"), "alpha's version\n")
        try overwrite(pair.b.file("report.txt"), "beta's version\n")
        try pair.startBoth()
        let twoFiles = { syncedNames(pair.a.folder).count == 2 }
        await pair.converge("conflict", also: twoFiles)
        let names = syncedNames(pair.a.folder).sorted()
        #expect(names.count == 2)
        #expect(names.contains("report.txt"))
        let copy = names.first { $0 != "report.txt" } ?? ""
        #expect(copy.hasPrefix("report (conflict ") && copy.hasSuffix(").txt"), "conflict copy name: \(copy)")
        let texts = Set(names.compactMap { contents(pair.a.file($0)) })
        #expect(texts == ["alpha's version\n", "beta's version\n"])
        await pair.stopBoth()
    }

    @Test func renameOnOneSideAndEditOnTheOtherGiveOneRenamedEditedFile() async throws {
        let pair = try DevicePair()
        try pair.startBoth()
        try "first draft\n".write(to: pair.a.file("draft.txt"), atomically: false, encoding: .utf8)
        await pair.converge("initial file")
        await pair.stopBoth()
        try FileManager.default.moveItem(at: pair.a.file("draft.txt"), to: pair.a.file("final.txt"))
        try overwrite(pair.b.file("draft.txt"), "second draft\n")
        try pair.startBoth()
        await pair.converge("rename vs edit", also: { contents(pair.a.file("final.txt")) == "second draft\n" })
        let names = syncedNames(pair.b.folder)
        #expect(names == ["final.txt"])
        #expect(contents(pair.b.file("final.txt")) == "second draft\n")
        await pair.stopBoth()
    }

    @Test func killNineWhileSyncingAThousandFilesLosesNothing() async throws {
        let pair = try DevicePair()
        try pair.startBoth()
        let tree = pair.a.file("many")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        for i in 0..<1000 {
            try String(repeating: "line \(i)\n", count: 40 + i % 50).write(to: tree.appendingPathComponent("f\(i).txt"), atomically: false, encoding: .utf8)
        }
        // Crash the receiver while it is writing, then the sender while it may still be sending.
        _ = await eventually(timeout: .seconds(30)) {
            ((try? FileManager.default.contentsOfDirectory(atPath: pair.b.file("many").path).count) ?? 0) > 50
        }
        await pair.b.crash()
        await pair.a.crash()
        try pair.a.start()
        try pair.b.start()
        await pair.converge(timeout: .seconds(180), "after kill -9")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: pair.b.file("many").path).count) == 1000)
        for folder in [pair.a.folder, pair.b.folder] {
            let leftovers = (try FileManager.default.subpathsOfDirectory(atPath: folder.path)).filter { $0.contains(".docsync-tmp-") }
            #expect(leftovers.isEmpty, "temporary files left: \(leftovers)")
        }
        await pair.stopBoth()
    }
}
