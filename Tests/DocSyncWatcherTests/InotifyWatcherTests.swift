@testable import DocSyncWatcher
import DocSyncTestSupport
import Foundation
import Logging
import Testing

/// Everything a watcher's stream yields, collected in the background.
final class EventLog: Sendable {
    private let received = Synchronized<[WatchEvent]>([])
    private let ended = Synchronized(false)
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<WatchEvent>) {
        let received = self.received, ended = self.ended
        task = Task {
            for await event in stream { received.update { $0.append(event) } }
            ended.update { $0 = true }
        }
    }

    deinit { task.cancel() }

    var events: [WatchEvent] { received.value }
    var finished: Bool { ended.value }

    func count(_ event: WatchEvent) -> Int { events.filter { $0 == event }.count }

    /// Waits until `event` has been received; false after `timeout`.
    func waitFor(_ event: WatchEvent, timeout: Duration = .seconds(10)) async -> Bool {
        await eventually(timeout: timeout) { self.events.contains(event) }
    }

    /// Waits until some received event satisfies `match`.
    func waitFor(timeout: Duration = .seconds(10), _ match: @escaping (WatchEvent) -> Bool) async -> Bool {
        await eventually(timeout: timeout) { self.events.contains(where: match) }
    }
}

/// A watcher on a fresh temporary folder, with its events collected. The watcher stops
/// before the folder is deleted.
final class Watched {
    let folder: TemporaryDirectory
    let watcher: InotifyWatcher
    let log: EventLog

    init(quietPeriod: Duration = .seconds(1), ignoredFilePrefix: String? = nil, ownRenamePrefix: String? = nil,
         prepare: (URL) throws -> Void = { _ in }) throws {
        folder = try TemporaryDirectory("docsync-watch")
        try prepare(folder.url)
        watcher = InotifyWatcher(root: folder.url, logger: Logger(label: "test.watcher"), quietPeriod: quietPeriod,
                                 ignoredFilePrefix: ignoredFilePrefix, ownRenamePrefix: ownRenamePrefix)
        log = EventLog(try watcher.start())
    }

    deinit { watcher.stop() }

    func path(_ relative: String) -> String { folder.url.appendingPathComponent(relative).path }

    /// Waits until the watcher has nothing pending.
    func settle(timeout: Duration = .seconds(10)) async -> Bool {
        await eventually(timeout: timeout) { watcher.isQuiet }
    }
}

/// Writes `content` with plain open/write/close: IN_CREATE, IN_MODIFY, IN_CLOSE_WRITE.
func writeFile(_ path: String, _ content: String = "hello\n") throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    defer { close(fd) }
    let bytes = Array(content.utf8)
    guard write(fd, bytes, bytes.count) == bytes.count else { throw POSIXError(.EIO) }
}

func shell(_ command: String) async throws {
    let result = try await runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", command])
    #expect(result.status == 0, "\(command): \(result.errors)")
}

/// Real inotify on real temporary folders. libinotifytools is process-global, so these run
/// one at a time (the watcher itself supports several folders at once; one test shows it).
@Suite(.serialized) struct InotifyWatcherTests {
    @Test func aWrittenFileIsOneChange() async throws {
        let watched = try Watched()
        try writeFile(watched.path("a.txt"))
        #expect(await watched.log.waitFor(.changed("a.txt")))
        #expect(await watched.settle())
        #expect(watched.log.events == [.changed("a.txt")])
    }

    @Test func aClosedFileIsReportedWithoutWaitingForTheQuietPeriod() async throws {
        // A quiet period far above what a loaded machine adds to delivering an event (the
        // suite runs many tests at once on two cores), so the bound tells the two apart.
        let watched = try Watched(quietPeriod: .seconds(30))
        let start = ContinuousClock.now
        try writeFile(watched.path("fast.txt"), String(repeating: "x", count: 4096))
        #expect(await watched.log.waitFor(.changed("fast.txt"), timeout: .seconds(20)))
        #expect(ContinuousClock.now - start < .seconds(15), "close-write is reported at once, not after the quiet period")
    }

    @Test func aFileKeptOpenIsReportedOnceAfterTheQuietPeriod() async throws {
        // A quiet period well above the writer's pace, so a loaded machine stretching a 50 ms
        // pause does not look like the writer going quiet.
        let watched = try Watched(quietPeriod: .milliseconds(1500)) { try writeFile($0.appendingPathComponent("log.txt").path, "") }
        let handle = try #require(FileHandle(forWritingAtPath: watched.path("log.txt")))
        for index in 0..<5 {
            try handle.write(contentsOf: Data("line \(index)\n".utf8))
            try await Task.sleep(for: .milliseconds(50))  // the pace of a slow writer, not a wait for the watcher
        }
        #expect(!watched.watcher.isQuiet, "a write in progress is pending")
        #expect(watched.log.events.isEmpty, "nothing before the writer has been quiet for the quiet period")
        #expect(await watched.log.waitFor(.changed("log.txt")))
        #expect(await watched.settle())
        #expect(watched.log.events == [.changed("log.txt")])
        try handle.close()
    }

    @Test func aRenameIsOneMove() async throws {
        let watched = try Watched { try writeFile($0.appendingPathComponent("old.txt").path) }
        try FileManager.default.moveItem(atPath: watched.path("old.txt"), toPath: watched.path("new.txt"))
        #expect(await watched.log.waitFor(.moved(from: "old.txt", to: "new.txt")))
        #expect(await watched.settle())
        #expect(watched.log.events == [.moved(from: "old.txt", to: "new.txt")])
    }

    @Test func ignoredTemporaryFilesAreNeverReportedAndTheirRenameIsAChangeOfTheTarget() async throws {
        let watched = try Watched(ignoredFilePrefix: ".tmp-") { try FileManager.default.createDirectory(at: $0.appendingPathComponent(".tmp-dir"), withIntermediateDirectories: true) }
        try writeFile(watched.path(".tmp-scratch"))
        try FileManager.default.removeItem(atPath: watched.path(".tmp-scratch"))
        try writeFile(watched.path(".tmp-download"))
        try FileManager.default.moveItem(atPath: watched.path(".tmp-download"), toPath: watched.path("arrived.txt"))
        try writeFile(watched.path(".tmp-dir/inside.txt"))  // only files are matched, not directories
        #expect(await watched.log.waitFor(.changed(".tmp-dir/inside.txt")))
        #expect(await watched.settle())
        #expect(watched.log.events == [.changed("arrived.txt"), .changed(".tmp-dir/inside.txt")])
    }

    @Test func ownFilesMovedIntoPlaceAreNotReportedButOtherRenamesAre() async throws {
        let watched = try Watched(ignoredFilePrefix: ".tmp-", ownRenamePrefix: ".tmp-own-") {
            try FileManager.default.createDirectory(at: $0.appendingPathComponent("sub"), withIntermediateDirectories: true)
        }
        // Many, so that some pair of halves is likely to straddle two reads of the queue.
        for index in 0..<200 {
            try writeFile(watched.path(".tmp-own-\(index)"))
            #expect(rename(watched.path(".tmp-own-\(index)"), watched.path("placed-\(index).txt")) == 0)
        }
        try writeFile(watched.path(".tmp-own-replacing"))
        #expect(rename(watched.path(".tmp-own-replacing"), watched.path("placed-0.txt")) == 0)  // over a file
        try writeFile(watched.path(".tmp-someone-else"))  // the ignored prefix, but not this process's own
        #expect(rename(watched.path(".tmp-someone-else"), watched.path("theirs.txt")) == 0)
        try writeFile(watched.path(".tmp-own-elsewhere"))  // own, but moved to another directory
        #expect(rename(watched.path(".tmp-own-elsewhere"), watched.path("sub/moved.txt")) == 0)
        try writeFile(watched.path("placed-1.txt"), "edited\n")  // a change to a placed file is a change
        try writeFile(watched.path("last.txt"))
        #expect(await watched.log.waitFor(.changed("last.txt")))
        #expect(await watched.settle())
        // Every rename that is not an own one into place is reported, once.
        let expected: Set<WatchEvent> = [.changed("theirs.txt"), .changed("sub/moved.txt"), .changed("placed-1.txt"), .changed("last.txt")]
        let events = watched.log.events
        for event in expected { #expect(events.filter { $0 == event }.count == 1, "\(event)") }
        // The own ones are not, but for the rare pair whose halves the hub, shared with every
        // other test in the process, took too far apart (the watcher does not promise it; such
        // a report costs the daemon one look). Nothing else is reported.
        let leaked = events.filter { !expected.contains($0) }
        #expect(leaked.allSatisfy { if case .changed(let path) = $0 { path.hasPrefix("placed-") } else { false } }, "\(leaked)")
        #expect(leaked.count <= 4, "\(leaked.count) of 201 own renames into place were reported: \(leaked)")
    }

    @Test func aDeletionIsARemoval() async throws {
        let watched = try Watched { try writeFile($0.appendingPathComponent("doomed").path) }
        try FileManager.default.removeItem(atPath: watched.path("doomed"))
        #expect(await watched.log.waitFor(.removed("doomed")))
        #expect(await watched.settle())
        #expect(watched.log.events == [.removed("doomed")])
    }

    @Test func chmodIsAChange() async throws {
        let watched = try Watched { try writeFile($0.appendingPathComponent("script").path) }
        #expect(chmod(watched.path("script"), 0o755) == 0)
        #expect(await watched.log.waitFor(.changed("script")))
        #expect(await watched.settle())
        #expect(watched.log.events == [.changed("script")])
    }

    @Test func aTreeMadeAtOnceIsWatchedThroughout() async throws {
        let source = try TemporaryDirectory("docsync-source")
        var expectedFiles: [String] = []
        for path in ["d1/d2/d3", "d1/e2", "f1/f2/f3/f4"] {
            try FileManager.default.createDirectory(atPath: source.path + "/big/" + path, withIntermediateDirectories: true)
        }
        for (index, directory) in ["", "d1", "d1/d2", "d1/d2/d3", "d1/e2", "f1/f2/f3/f4"].enumerated() {
            for file in 0..<20 {
                let name = (directory.isEmpty ? "" : directory + "/") + "file\(index)-\(file).txt"
                try writeFile(source.path + "/big/" + name, "content \(file)\n")
                expectedFiles.append("a/b/c/big/" + name)
            }
        }
        let watched = try Watched()
        try await shell("cd '\(watched.folder.path)' && mkdir -p a/b/c && cp -r '\(source.path)/big' a/b/c/")
        #expect(await watched.log.waitFor(.directoryAppeared("a")))
        #expect(await watched.settle())
        // A scan of each appeared directory, plus the changes, covers every file.
        let events = watched.log.events
        let appeared = events.compactMap { if case .directoryAppeared(let path) = $0 { path } else { nil } }
        for file in expectedFiles {
            let covered = events.contains(.changed(file)) || appeared.contains { EventCoalescer.isSameOrUnder(file, $0) }
            #expect(covered, "\(file) is neither reported nor inside an appeared directory")
        }
        // Every new directory is watched: a file made in it now is reported with its path.
        let directories = ["a", "a/b", "a/b/c", "a/b/c/big", "a/b/c/big/d1", "a/b/c/big/d1/d2", "a/b/c/big/d1/d2/d3",
                           "a/b/c/big/d1/e2", "a/b/c/big/f1/f2/f3/f4"]
        for directory in directories {
            try writeFile(watched.path(directory + "/probe"))
        }
        for directory in directories {
            #expect(await watched.log.waitFor(.changed(directory + "/probe")), "\(directory) is watched")
        }
    }

    @Test func aRenamedDirectoryReportsLaterChangesUnderItsNewName() async throws {
        let watched = try Watched { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("d/sub/deeper"), withIntermediateDirectories: true)
            try writeFile(root.appendingPathComponent("d/sub/f").path)
        }
        try FileManager.default.moveItem(atPath: watched.path("d"), toPath: watched.path("e"))
        try writeFile(watched.path("e/sub/f"), "changed\n")
        try writeFile(watched.path("e/sub/deeper/g"))
        #expect(await watched.log.waitFor(.changed("e/sub/deeper/g")))
        #expect(await watched.settle())
        #expect(watched.log.events == [.moved(from: "d", to: "e"), .changed("e/sub/f"), .changed("e/sub/deeper/g")])
    }

    @Test func aDirectoryRenamedTwiceAndOneMadeAgainKeepTheirOwnPaths() async throws {
        let watched = try Watched { try FileManager.default.createDirectory(at: $0.appendingPathComponent("x/inner"), withIntermediateDirectories: true) }
        try FileManager.default.moveItem(atPath: watched.path("x"), toPath: watched.path("y"))
        try FileManager.default.createDirectory(atPath: watched.path("x/inner"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: watched.path("y"), toPath: watched.path("z"))
        #expect(await watched.log.waitFor(.moved(from: "y", to: "z")))
        #expect(await watched.settle())
        #expect(watched.log.events.prefix(2) == [.moved(from: "x", to: "y"), .directoryAppeared("x")])
        try writeFile(watched.path("x/inner/new"))
        try writeFile(watched.path("z/inner/old"))
        #expect(await watched.log.waitFor(.changed("x/inner/new")))
        #expect(await watched.log.waitFor(.changed("z/inner/old")))
        #expect(await watched.settle())
        let changed = watched.log.events.filter { if case .changed = $0 { true } else { false } }
        #expect(changed == [.changed("x/inner/new"), .changed("z/inner/old")])
    }

    @Test func aDirectoryDeletedAndMadeAgainIsWatchedAgain() async throws {
        let watched = try Watched { try FileManager.default.createDirectory(at: $0.appendingPathComponent("build/out"), withIntermediateDirectories: true) }
        try await shell("cd '\(watched.folder.path)' && rm -rf build")
        #expect(await watched.log.waitFor(.removed("build")))
        #expect(await watched.settle())
        try FileManager.default.createDirectory(atPath: watched.path("build/out"), withIntermediateDirectories: true)
        #expect(await watched.log.waitFor(.directoryAppeared("build")))
        // Until then, a file made in build/out may predate its watch: the scan of an appeared
        // directory covers it, not an event.
        #expect(await watched.settle())
        try writeFile(watched.path("build/out/a.o"))
        #expect(await watched.log.waitFor(.changed("build/out/a.o")))
        // The new directory is in the library's path index too: a rename of it is followed.
        try FileManager.default.moveItem(atPath: watched.path("build"), toPath: watched.path("dist"))
        try writeFile(watched.path("dist/out/b.o"))
        #expect(await watched.log.waitFor(.changed("dist/out/b.o")))
    }

    @Test func everyDirectoryBeneathARenamedOneIsFollowed() async throws {
        // libinotifytools' own bulk rename misses entries; each must carry the new name.
        let directories = (0..<12).flatMap { ["s\($0)", "s\($0)/t", "s\($0)/t/u"] }
        #expect(directories.count < InotifyLibrary.renameLimit)
        let watched = try Watched { root in
            for directory in directories {
                try FileManager.default.createDirectory(at: root.appendingPathComponent("proj/" + directory), withIntermediateDirectories: true)
            }
        }
        try FileManager.default.moveItem(atPath: watched.path("proj"), toPath: watched.path("renamed"))
        for directory in directories { try writeFile(watched.path("renamed/\(directory)/f")) }
        for directory in directories {
            #expect(await watched.log.waitFor(.changed("renamed/\(directory)/f")), "renamed/\(directory)")
        }
        #expect(await watched.settle())
        // The move first; then one change per file, in any order (they commute).
        #expect(watched.log.events.first == .moved(from: "proj", to: "renamed"))
        #expect(watched.log.events.count == directories.count + 1)
        #expect(Set(watched.log.events.dropFirst()) == Set(directories.map { .changed("renamed/\($0)/f") }))
    }

    @Test func aLargeDirectoryRenameIsFollowedAndRescanned() async throws {
        let count = InotifyLibrary.renameLimit + 20
        let watched = try Watched { root in
            for index in 0..<count {
                try FileManager.default.createDirectory(at: root.appendingPathComponent("big/sub\(index)"), withIntermediateDirectories: true)
            }
        }
        try FileManager.default.moveItem(atPath: watched.path("big"), toPath: watched.path("huge"))
        #expect(await watched.log.waitFor(.moved(from: "big", to: "huge")))
        #expect(await watched.log.waitFor { if case .rescan("huge", _) = $0 { true } else { false } })
        try writeFile(watched.path("huge/sub\(count - 1)/f"))
        #expect(await watched.log.waitFor(.changed("huge/sub\(count - 1)/f")))
    }

    @Test func movesInAndOutOfTheFolder() async throws {
        let outside = try TemporaryDirectory("docsync-outside")
        try writeFile(outside.path + "/incoming.txt")
        try FileManager.default.createDirectory(atPath: outside.path + "/incoming-dir/inner", withIntermediateDirectories: true)
        let watched = try Watched { root in
            try writeFile(root.appendingPathComponent("leaving.txt").path)
            try FileManager.default.createDirectory(at: root.appendingPathComponent("leaving-dir/inner"), withIntermediateDirectories: true)
        }
        try FileManager.default.moveItem(atPath: outside.path + "/incoming.txt", toPath: watched.path("incoming.txt"))
        try FileManager.default.moveItem(atPath: outside.path + "/incoming-dir", toPath: watched.path("incoming-dir"))
        try FileManager.default.moveItem(atPath: watched.path("leaving.txt"), toPath: outside.path + "/leaving.txt")
        try FileManager.default.moveItem(atPath: watched.path("leaving-dir"), toPath: outside.path + "/leaving-dir")
        #expect(await watched.log.waitFor(.changed("incoming.txt")))
        #expect(await watched.log.waitFor(.directoryAppeared("incoming-dir")))
        #expect(await watched.log.waitFor(.removed("leaving.txt")))
        #expect(await watched.log.waitFor(.removed("leaving-dir")))
        #expect(await watched.settle())
        // The directory moved in is watched; the one moved out is not any more.
        try writeFile(outside.path + "/leaving-dir/inner/ghost")
        try writeFile(watched.path("incoming-dir/inner/real"))
        #expect(await watched.log.waitFor(.changed("incoming-dir/inner/real")))
        #expect(await watched.settle())
        #expect(!watched.log.events.contains { "\($0)".contains("ghost") })
        #expect(watched.log.events.count == 5)
    }

    @Test func symlinksAreReportedButNeverFollowed() async throws {
        let elsewhere = try TemporaryDirectory("docsync-elsewhere")
        let watched = try Watched { root in
            try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("old-link").path, withDestinationPath: elsewhere.path)
        }
        try writeFile(elsewhere.path + "/outside.txt")
        try FileManager.default.createSymbolicLink(atPath: watched.path("new-link"), withDestinationPath: elsewhere.path)
        #expect(await watched.log.waitFor(.changed("new-link"), timeout: .seconds(3)), "a symlink is complete when made: no quiet period")
        #expect(await watched.settle())
        #expect(watched.log.events == [.changed("new-link")])
    }

    @Test func aNameThatIsNotUTF8IsARescanOfItsDirectory() async throws {
        let watched = try Watched { try FileManager.default.createDirectory(at: $0.appendingPathComponent("sub"), withIntermediateDirectories: true) }
        let badName: [UInt8] = Array("\(watched.path("sub"))/bad-".utf8) + [0xFF, 0xFE, 0]
        let fd = badName.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_WRONLY | O_CREAT, 0o644) }
        #expect(fd >= 0)
        close(fd)
        #expect(await watched.log.waitFor { if case .rescan("sub", _) = $0 { true } else { false } })
        #expect(await watched.settle())
        #expect(watched.log.events.allSatisfy { if case .rescan("sub", _) = $0 { true } else { false } })
        #expect(watched.watcher.warnings.contains { $0.contains("not valid UTF-8") })
    }

    @Test func isQuietUntilTheConsumerIsDoneWithEveryEvent() async throws {
        let folder = try TemporaryDirectory("docsync-watch")
        let watcher = InotifyWatcher(root: folder.url, logger: Logger(label: "test.watcher"))
        let stream = try watcher.start()
        #expect(watcher.isQuiet)
        try writeFile(folder.path + "/now")
        // Nothing reads the stream yet: the change is in the kernel queue, being coalesced,
        // or waiting in the stream, and each of those is "not quiet".
        #expect(!watcher.isQuiet)
        let id = try #require(watcher.subscriptionID)
        #expect(await eventually { InotifyHub.shared.isQuiet(id) }, "the event has reached the stream")
        #expect(!watcher.isQuiet, "it is not taken yet")
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == .changed("now"))
        // Taken, the event may still be on its way to where the consumer puts it (a daemon's
        // engine): quiet only once the consumer asks for the next one.
        #expect(!watcher.isQuiet, "taken, not yet handed on")
        let asking = Task { var rest = iterator; return await rest.next() }
        #expect(await eventually { watcher.isQuiet }, "asking for the next event, the consumer is done with the last")
        watcher.stop()
        #expect(await asking.value == nil)
    }

    @Test func stopEndsTheStreamAndTheThread() async throws {
        let watched = try Watched()
        watched.watcher.stop()
        #expect(await eventually { watched.log.finished })
        try writeFile(watched.path("after-stop"))
        #expect(watched.watcher.isQuiet)
        // The owner thread exits once no folder is watched (unless another test watches one).
        #expect(await eventually { !InotifyHub.shared.isRunning || InotifyHub.shared.subscriptionCount > 0 })
        #expect(watched.log.events.isEmpty)
        watched.watcher.stop()  // twice is fine
    }

    @Test func severalFoldersShareTheThreadAndGetTheirOwnEvents() async throws {
        let first = try Watched()
        let second = try Watched()
        try writeFile(first.path("one"))
        try writeFile(second.path("two"))
        try FileManager.default.moveItem(atPath: first.path("one"), toPath: second.path("moved-over"))
        #expect(await first.log.waitFor(.removed("one")))
        #expect(await second.log.waitFor(.changed("moved-over")))
        #expect(await first.settle())
        #expect(await second.settle())
        #expect(first.log.events == [.changed("one"), .removed("one")])
        #expect(second.log.events == [.changed("two"), .changed("moved-over")])
        // Stopping one leaves the other watched.
        first.watcher.stop()
        #expect(await eventually { first.log.finished })
        try writeFile(second.path("still"))
        #expect(await second.log.waitFor(.changed("still")))
    }

    @Test func foldersThatCannotBeWatchedSayWhy() async throws {
        let folder = try TemporaryDirectory("docsync-errors")
        let logger = Logger(label: "test.watcher")
        func code(_ url: URL) -> WatcherError.Code? {
            do {
                _ = try InotifyWatcher(root: url, logger: logger).start()
                return nil
            } catch {
                #expect(error.message.contains(error.path), "the message names the folder")
                return error.code
            }
        }
        #expect(code(folder.url.appendingPathComponent("missing")) == .folderNotFound)
        try writeFile(folder.path + "/file")
        #expect(code(folder.url.appendingPathComponent("file")) == .notADirectory)

        try FileManager.default.createDirectory(atPath: folder.path + "/outer/inner", withIntermediateDirectories: true)
        let outer = InotifyWatcher(root: folder.url.appendingPathComponent("outer"), logger: logger)
        let log = EventLog(try outer.start())
        #expect(code(folder.url.appendingPathComponent("outer/inner")) == .overlapsWatchedFolder)
        #expect(code(folder.url) == .overlapsWatchedFolder)
        #expect(throws: WatcherError.self) { _ = try outer.start() }
        outer.stop()
        #expect(await eventually { log.finished })
    }

    @Test func aQueueOverflowIsARescanAndWatchingGoesOn() async throws {
        let queueLimit = InotifyLimits.maxQueuedEvents ?? 16384
        try #require(queueLimit <= 200_000, "fs.inotify.max_queued_events is too large to overflow in a test")
        let watched = try Watched()
        #expect(await watched.settle())
        // Hold the owner thread so the kernel queue fills up.
        let hold = DispatchSemaphore(value: 0)
        let holding = Synchronized(false)
        InotifyHub.shared.runOnThread {
            holding.update { $0 = true }
            _ = hold.wait(timeout: .now() + 60)
        }
        #expect(await eventually { holding.value })
        for index in 0..<(queueLimit / 2 + 500) {  // two events per file: create, close-write
            let fd = open(watched.path("f\(index)"), O_WRONLY | O_CREAT, 0o644)
            close(fd)
        }
        // Made after the queue overflowed: its creation is lost, yet it must end up watched.
        try FileManager.default.createDirectory(atPath: watched.path("late"), withIntermediateDirectories: false)
        hold.signal()
        #expect(await watched.log.waitFor(.rescan("", reason: "inotify queue overflowed")))
        #expect(watched.watcher.warnings.contains { $0.contains("max_queued_events") })
        try writeFile(watched.path("late/after"))
        #expect(await watched.log.waitFor(.changed("late/after")))
    }
}
