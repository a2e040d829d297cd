import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// Two real daemons on two folders with one `file://` backend converge after every kind of
/// change a person makes (issue 3's list), one step after another on a running pair.
@Suite("Two daemons converge", .serialized)
struct ConvergenceTests {
    @Test func everyKindOfChangeConverges() async throws {
        let pair = try DevicePair()
        try pair.startBoth()
        let a = pair.a, b = pair.b

        try "hello\n".write(to: a.file("notes.txt"), atomically: false, encoding: .utf8)
        await pair.converge("create")
        #expect(contents(b.file("notes.txt")) == "hello\n")

        try overwrite(b.file("notes.txt"), "edited on beta\n")
        await pair.converge("edit in place on the other side")
        #expect(contents(a.file("notes.txt")) == "edited on beta\n")

        let handle = try FileHandle(forWritingTo: a.file("notes.txt"))
        handle.seekToEndOfFile()
        handle.write(Data("appended\n".utf8))
        try handle.close()
        await pair.converge("append")
        #expect(contents(b.file("notes.txt")) == "edited on beta\nappended\n")

        #expect(truncate(b.file("notes.txt").path, 6) == 0)
        await pair.converge("truncate")
        #expect(contents(a.file("notes.txt")) == "edited")

        try FileManager.default.moveItem(at: a.file("notes.txt"), to: a.file("renamed.txt"))
        await pair.converge("rename")

        try FileManager.default.createDirectory(at: a.file("docs"), withIntermediateDirectories: false)
        try FileManager.default.moveItem(at: a.file("renamed.txt"), to: a.file("docs/renamed.txt"))
        await pair.converge("move across directories")
        #expect(contents(b.file("docs/renamed.txt")) == "edited")

        try FileManager.default.createSymbolicLink(atPath: b.file("link").path, withDestinationPath: "docs/renamed.txt")
        await pair.converge("symlink")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: a.file("link").path)) == "docs/renamed.txt")

        #expect(chmod(a.file("docs/renamed.txt").path, 0o600) == 0)
        await pair.converge("chmod")

        try FileManager.default.createDirectory(at: b.file("empty"), withIntermediateDirectories: false)
        await pair.converge("empty directory")

        let source = pair.base.url.appendingPathComponent("source")
        try FileManager.default.createDirectory(at: source.appendingPathComponent("inner"), withIntermediateDirectories: true)
        for i in 0..<20 { try "file \(i)\n".write(to: source.appendingPathComponent("inner/f\(i).txt"), atomically: false, encoding: .utf8) }
        try await shell("mkdir -p a/b/c/d && cp -r '\(source.path)'/. a/b/c/d/", in: a.folder)
        await pair.converge("mkdir -p filled at once")
        #expect(FileManager.default.fileExists(atPath: b.file("a/b/c/d/inner/f19.txt").path))

        try await shell("rm -rf a", in: b.folder)
        await pair.converge("rm -rf of a tree")
        #expect(!FileManager.default.fileExists(atPath: a.file("a").path))

        try FileManager.default.removeItem(at: a.file("docs/renamed.txt"))
        await pair.converge("delete")
        let kept = try FileManager.default.subpathsOfDirectory(atPath: b.stateDirectory.path).filter { $0.hasSuffix("renamed.txt") }
        #expect(!kept.isEmpty, "the remotely deleted file is kept in beta's version store")

        #expect(await a.stop() == 0)
        #expect(await b.stop() == 0)
    }

    @Test func renamingADirectoryOf1000FilesUploadsNoContent() async throws {
        let pair = try DevicePair()
        try pair.startBoth()
        let tree = pair.a.file("big")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        for i in 0..<1000 { try "content of file \(i)\n".write(to: tree.appendingPathComponent("f\(i).txt"), atomically: false, encoding: .utf8) }
        await pair.converge(timeout: .seconds(120), "1,000 files")
        let chunksBefore = try await pair.storedChunkCount()
        let recordsBefore = try await pair.records()
        #expect(recordsBefore.count == 1001)
        try FileManager.default.moveItem(at: tree, to: pair.a.file("moved"))
        await pair.converge(timeout: .seconds(120), "directory rename")
        #expect(FileManager.default.fileExists(atPath: pair.b.file("moved/f999.txt").path))
        #expect(try await pair.storedChunkCount() == chunksBefore, "no chunk was uploaded again")
        // The same 1,001 records, each with its path changed: a rename is a record update.
        // (The folder's own record moves the whole directory on beta at once; the children's
        // records follow in batches of 400.)
        let allMoved = await eventually(timeout: .seconds(60)) {
            let after = (try? await pair.records()) ?? [:]
            return Set(after.keys) == Set(recordsBefore.keys)
                && after.allSatisfy { name, path in path == "moved" + recordsBefore[name]!.dropFirst("big".count) }
        }
        #expect(allMoved)
        #expect(try await pair.storedChunkCount() == chunksBefore)
        await pair.stopBoth()
    }

    @Test func aFileOverTheSizeLimitStaysLocalWithAnError() async throws {
        let pair = try DevicePair(extraArguments: ["--max-file-size", "1MB"])
        try pair.startBoth()
        try Data(repeating: 7, count: 2_000_000).write(to: pair.a.file("big.bin"))
        try "small\n".write(to: pair.a.file("small.txt"), atomically: false, encoding: .utf8)
        let arrived = await eventually(timeout: .seconds(60)) { FileManager.default.fileExists(atPath: pair.b.file("small.txt").path) }
        #expect(arrived, "alpha:\n\(pair.a.logText().suffix(4000))\nbeta:\n\(pair.b.logText().suffix(4000))")
        #expect(try await pair.a.waitSettled(timeout: 60))
        #expect(!FileManager.default.fileExists(atPath: pair.b.file("big.bin").path))
        let status = try await pair.a.status()
        let problem = status?.folders.first?.problems.first { $0.path == "big.bin" }
        #expect(problem?.message.contains("max_file_size") == true, "status: \(String(describing: status))")
        await pair.stopBoth()
    }

    @Test func aFiftyMegabyteFile() async throws {
        let pair = try DevicePair()
        try pair.startBoth()
        var random = SeededRandom(seed: 50)
        try Data(random.bytes(50_000_000)).write(to: pair.a.file("large.bin"))
        await pair.converge(timeout: .seconds(180), "50 MB file")
        await pair.stopBoth()
    }

    @Test func tenThousandSmallFiles() async throws {
        let pair = try DevicePair()
        try pair.startBoth()
        for d in 0..<100 {
            let dir = pair.a.file("d\(d)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            for f in 0..<100 { try "file \(d)/\(f)\n".write(to: dir.appendingPathComponent("f\(f).txt"), atomically: false, encoding: .utf8) }
        }
        await pair.converge(timeout: .seconds(300), "10,000 small files")
        await pair.stopBoth()
    }
}
