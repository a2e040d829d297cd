import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// SPEC §9: what the daemon meets calmly — each bad item is a per-file problem, and
/// everything else still syncs.
@Suite("SPEC §9: bad input")
struct BadInputTests {
    let base: TemporaryDirectory
    let outside: TemporaryDirectory
    let backend: LocalBackend

    init() throws {
        base = try TemporaryDirectory("docsync-badinput")
        outside = try TemporaryDirectory("docsync-outside")
        backend = try LocalBackend(directory: base.url.appendingPathComponent("backend"))
    }

    @Test func badItemsAreReportedAndTheRestSyncs() async throws {
        let a = try EngineDevice(name: "alpha", base: base.url, backend: backend)
        let b = try EngineDevice(name: "beta", base: base.url, backend: backend)
        let longName = String(repeating: "é", count: 120) + ".txt"  // 244 bytes
        try "newline\n".write(to: a.file("two\nlines.txt"), atomically: false, encoding: .utf8)
        try "long\n".write(to: a.file(longName), atomically: false, encoding: .utf8)
        try "fine\n".write(to: a.file("fine.txt"), atomically: false, encoding: .utf8)
        try "secret\n".write(to: outside.url.appendingPathComponent("secret.txt"), atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: a.file("escape").path, withDestinationPath: outside.path)
        #expect(mkfifo(a.file("pipe").path, 0o644) == 0)
        let bad = Array((a.folder.path + "/caf").utf8) + [0xE9, 0]
        let fd = bad.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644) }
        #expect(fd >= 0)
        close(fd)
        try FileManager.default.createDirectory(at: a.file("drafts.nosync"), withIntermediateDirectories: true)
        try "private\n".write(to: a.file("drafts.nosync/idea.txt"), atomically: false, encoding: .utf8)
        try "swap\n".write(to: a.file(".fine.txt.swp"), atomically: false, encoding: .utf8)
        a.rescan()

        #expect(await eventually(timeout: .seconds(60)) { b.read("fine.txt") == "fine\n" && b.read(longName) == "long\n" && b.read("two\nlines.txt") == "newline\n" })
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: b.file("escape").path) == outside.path, "a symlink is synced as a link")
        #expect(b.names().sorted() == ["escape", "fine.txt", longName, "two\nlines.txt"].sorted(), "ignored and unsyncable items stay behind")
        let problems = Set(a.status.problems.map(\.path))
        #expect(problems.contains("pipe"))
        #expect(problems.contains("caf\\xE9"), "\(problems)")
    }

    @Test func aRemotePathThroughALocalSymlinkNeverLeavesTheFolder() async throws {
        let a = try EngineDevice(name: "alpha", base: base.url, backend: backend)
        let b = try EngineDevice(name: "beta", base: base.url, backend: backend)
        #expect(await eventually(timeout: .seconds(60)) { b.engine.isSettled })
        // On beta, "inbox" is a symlink out of the folder that beta's engine has not seen yet;
        // on alpha, "inbox" is a real directory with a file in it.
        try FileManager.default.createSymbolicLink(atPath: b.file("inbox").path, withDestinationPath: outside.path)
        try FileManager.default.createDirectory(at: a.file("inbox"), withIntermediateDirectories: true)
        try "payload\n".write(to: a.file("inbox/payload.txt"), atomically: false, encoding: .utf8)
        a.rescan()
        #expect(await eventually(timeout: .seconds(60)) { b.read("inbox/payload.txt") == "payload\n" && sameTrees(a, b) })
        #expect(!FileManager.default.fileExists(atPath: outside.url.appendingPathComponent("payload.txt").path), "nothing is written outside the folder")
        let aside = b.names().first { $0.hasPrefix("inbox (conflict ") }
        #expect(aside != nil, "beta's symlink is kept beside the directory: \(b.names())")
    }
}
