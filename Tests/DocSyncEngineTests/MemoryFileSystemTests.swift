import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Logging
import Synchronization
import Testing

/// The in-memory `FolderFileSystem` keeps the POSIX rules the engine relies on, fails what it
/// is told to, and loses on a crash what was not made durable; and engines run on it.
@Suite struct MemoryFileSystemTests {
    static let epoch = Timestamp(seconds: 1_800_000_000, nanoseconds: 0)

    func fileSystem() -> MemoryFileSystem { MemoryFileSystem(clock: { Self.epoch }) }

    /// The `errno` `body` failed with (0: it did not; -1: another error).
    func code(_ body: () throws -> Void) -> Int32 {
        do { try body() } catch let error as FileSystemError { return error.code } catch { return -1 }
        return 0
    }

    @Test func keepsThePosixRulesTheEngineReliesOn() throws {
        let fs = fileSystem()
        try fs.makeDirectories("/r/d")
        #expect(try fs.status("/r/missing") == nil)
        #expect(try fs.status("/r/missing/deeper") == nil)
        let file = try fs.createFile("/r/a", mode: 0o600, size: 3)
        try file.append(Data("abc".utf8))
        try file.finish(mode: 0o644, modified: Self.epoch, flush: true)
        #expect(code { _ = try fs.createFile("/r/a", mode: 0o600, size: 0) } == EEXIST)
        #expect(code { try fs.makeDirectory("/r/d", mode: 0o755) } == EEXIST)
        #expect(code { _ = try fs.createFile("/r/nowhere/x", mode: 0o600, size: 0) } == ENOENT)
        let a = try #require(try fs.status("/r/a"))
        #expect(a.kind == .file && a.size == 3 && a.mode == 0o644 && a.modified == Self.epoch)

        try fs.makeSymlink("a", at: "/r/link")
        #expect(try fs.status("/r/link")?.kind == .symlink)
        #expect(fs.statusFollowingLinks("/r/link")?.inode == a.inode)
        #expect(code { _ = try fs.openForReading("/r/link") } == ELOOP)
        #expect(try fs.linkTarget("/r/link") == Array("a".utf8))

        try fs.hardLink("/r/a", to: "/r/d/b")
        #expect(try fs.status("/r/d/b")?.inode == a.inode)
        #expect(code { try fs.renameWithoutReplacing("/r/a", to: "/r/d/b") } == EEXIST)
        #expect(code { try fs.renameIfFree("/r/missing", to: "/r/c") } == ENOENT)
        try fs.write(Data("other".utf8), to: "/r/c")
        try fs.rename("/r/c", to: "/r/a")
        #expect(fs.text("/r/a") == "other")
        #expect(fs.text("/r/d/b") == "abc", "the replaced file lives on under its other name")
        #expect(code { try fs.removeDirectory("/r/d") } == ENOTEMPTY)
        #expect(code { try fs.removeFile("/r/d") } == EISDIR)
        #expect(code { try fs.rename("/r/d", to: "/r/d/inside") } == EINVAL)
        try fs.makeSymlink("d", at: "/r/to-d")
        #expect(code { try fs.rename("/r/d", to: "/r/to-d/inside") } == EINVAL, "into itself through a symlink, as the kernel refuses it")
        try fs.removeFile("/r/to-d")
        try fs.removeFile("/r/d/b")
        try fs.removeDirectory("/r/d")
        #expect(try fs.entryNames("/r").map { String(decoding: $0, as: UTF8.self) } == ["a", "link"])
        let open = try fs.openForReading("/r/a")
        try fs.write(Data("changed meanwhile".utf8), to: "/r/a")
        #expect(try open.read(at: 0, length: 5) == Data("other".utf8), "an open file keeps its inode")
    }

    @Test func failsTheCallsItIsToldTo() throws {
        let fs = fileSystem()
        try fs.makeDirectories("/r")
        fs.setFailing { call, path in call == .append && path.hasSuffix(".big") ? ENOSPC : nil }
        let file = try fs.createFile("/r/x.big", mode: 0o600, size: 1)
        #expect(code { try file.append(Data("x".utf8)) } == ENOSPC)
        try fs.write(Data("fine".utf8), to: "/r/small")
        fs.setFailing(nil)
        try file.append(Data("x".utf8))
    }

    @Test func aCrashLosesWhatWasNotMadeDurable() throws {
        let fs = fileSystem()
        try fs.makeDirectories("/r")
        #expect(fs.flushFileSystem(containing: "/r"))
        let kept = try fs.createFile("/r/kept", mode: 0o644, size: 4)
        try kept.append(Data("kept".utf8))
        try kept.finish(mode: 0o644, modified: Self.epoch, flush: true)
        try fs.flushDirectory("/r")
        try fs.write(Data("lost".utf8), to: "/r/unflushed")
        try fs.rename("/r/kept", to: "/r/moved")
        fs.crash()
        #expect(fs.tree(under: "/r") == ["kept": "file kept"], "the rename and the new file were not durable")
    }

    /// A rename is durable whole or not at all, whichever directory is made durable: a crash
    /// never leaves a directory in two places (which made a folder its own descendant).
    @Test(arguments: ["/r/from", "/r/to", nil])
    func aRenameSurvivesACrashWholeOrNotAtAll(flushed: String?) throws {
        let fs = fileSystem()
        try fs.makeDirectories("/r/from/moving")
        try fs.makeDirectories("/r/to")
        #expect(fs.flushFileSystem(containing: "/r"))
        try fs.rename("/r/from/moving", to: "/r/to/moving")
        if let flushed { try fs.flushDirectory(flushed) }
        fs.crash()
        let there = try fs.status("/r/to/moving") != nil, left = try fs.status("/r/from/moving") != nil
        #expect(there != left, "in exactly one place: moved \(there), left \(left)")
        #expect(there == (flushed != nil))
    }

    @Test func twoEnginesOnMemoryFileSystemsConverge() async throws {
        let state = try TemporaryDirectory("docsync-memory-engines")
        let backend = try LocalBackend(directory: state.url.appendingPathComponent("backend"))
        let clock = Mutex(Self.epoch.nanosecondsSince1970)
        let now: @Sendable () -> Timestamp = { Timestamp(nanosecondsSince1970: clock.withLock { $0 += 1_000_000; return $0 }) }
        var engines: [(FolderEngine, MemoryFileSystem, Task<Void, Never>)] = []
        for name in ["alpha", "beta"] {
            let fs = MemoryFileSystem(clock: now)
            try fs.makeDirectories("/\(name)/Docs")
            var logger = Logger(label: "test.\(name)")
            logger.logLevel = .warning
            let configuration = EngineConfiguration(
                zone: ZoneID("Docs"), root: URL(fileURLWithPath: "/\(name)/Docs"), stateDirectory: state.url.appendingPathComponent(name),
                device: name, retryPolicy: RetryPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200), multiplier: 2))
            let engine = try FolderEngine(configuration: configuration, backend: backend, logger: logger, fileSystem: fs)
            let notifications = backend.changeNotifications()
            let task = Task {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await engine.run() }
                    group.addTask { for await _ in notifications { engine.noteRemoteChange() } }
                }
            }
            engines.append((engine, fs, task))
        }
        defer { for (_, _, task) in engines { task.cancel() } }
        let (alpha, alphaFS, _) = engines[0], (beta, betaFS, _) = engines[1]
        try alphaFS.write(Data("one\n".utf8), to: "/alpha/Docs/one.txt")
        try alphaFS.write(Data("two\n".utf8), to: "/alpha/Docs/sub/two.txt")
        try alphaFS.makeSymlink("one.txt", at: "/alpha/Docs/link")
        alpha.noteLocal([.rescan("", reason: "test")])
        let marker: Set<PathKey> = [PathKey(IgnoreRules.rootMarkerName)]
        #expect(await eventually(timeout: .seconds(120)) {
            betaFS.tree(under: "/beta/Docs", skipping: marker) == alphaFS.tree(under: "/alpha/Docs", skipping: marker)
                && betaFS.text("/beta/Docs/sub/two.txt") == "two\n"
        }, "\(betaFS.tree(under: "/beta/Docs"))")

        // A full disk on beta while it writes: nothing partial stays, and it arrives once there is room.
        betaFS.setFailing { call, _ in call == .append ? ENOSPC : nil }
        try alphaFS.write(Data("three\n".utf8), to: "/alpha/Docs/three.txt")
        alpha.noteLocal([.changed("three.txt")])
        #expect(await eventually(timeout: .seconds(120)) { beta.status().problems.isEmpty == false || beta.status().state == .offline })
        #expect(betaFS.tree(under: "/beta/Docs").keys.allSatisfy { !$0.string.contains(IgnoreRules.temporaryFilePrefix) })
        betaFS.setFailing(nil)
        beta.requestSync()
        #expect(await eventually(timeout: .seconds(120)) { betaFS.text("/beta/Docs/three.txt") == "three\n" })
        #expect(await eventually(timeout: .seconds(120)) { alpha.isSettled && beta.isSettled })
    }
}
