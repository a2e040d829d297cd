@testable import DocSyncEngine
import DocSyncTestSupport
import Foundation
import Testing

/// Moving an item aside (a conflict copy, a remote rename) must never replace what is at the
/// new name: `Materializer.moveIfFree` refuses instead, whatever is there.
@Suite struct MoveIfFreeTests {
    let base: TemporaryDirectory
    init() throws { base = try TemporaryDirectory("docsync-move-if-free") }

    func path(_ name: String) -> String { base.url.appendingPathComponent(name).path }

    func write(_ text: String, to name: String) throws {
        try Data(text.utf8).write(to: base.url.appendingPathComponent(name))
    }

    func read(_ name: String) -> String? {
        FileManager.default.contents(atPath: path(name)).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func movesToAFreeName() throws {
        try write("mine", to: "a.txt")
        #expect(Materializer.moveIfFree(path("a.txt"), path("b.txt"), in: PosixFileSystem()) == 0)
        #expect(read("b.txt") == "mine")
        #expect(read("a.txt") == nil)
    }

    @Test func leavesAFileAtTheNameAlone() throws {
        try write("mine", to: "a.txt")
        try write("someone else's", to: "b.txt")
        #expect(Materializer.moveIfFree(path("a.txt"), path("b.txt"), in: PosixFileSystem()) == EEXIST)
        #expect(read("a.txt") == "mine")
        #expect(read("b.txt") == "someone else's")
    }

    /// `rename(2)` would replace an empty directory with another directory.
    @Test func leavesAnEmptyDirectoryAtTheNameAlone() throws {
        try FileManager.default.createDirectory(atPath: path("src/inner"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: path("dst"), withIntermediateDirectories: true)
        #expect(Materializer.moveIfFree(path("src"), path("dst"), in: PosixFileSystem()) == EEXIST)
        #expect(FileManager.default.fileExists(atPath: path("src/inner")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: path("dst")).isEmpty)
    }

    @Test func saysWhenTheSourceIsGone() throws {
        #expect(Materializer.moveIfFree(path("missing.txt"), path("b.txt"), in: PosixFileSystem()) == ENOENT)
        #expect(read("b.txt") == nil)
    }
}
