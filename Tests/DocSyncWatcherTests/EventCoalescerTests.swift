@testable import DocSyncWatcher
import Testing

/// Drives an `EventCoalescer` on a made-up timeline: times are milliseconds after `t0`.
private struct Timeline {
    var coalescer: EventCoalescer
    let t0 = ContinuousClock.now

    init(quietPeriod: Duration = .seconds(1), moveWindow: Duration = .milliseconds(50)) {
        coalescer = EventCoalescer(quietPeriod: quietPeriod, moveWindow: moveWindow)
    }

    func at(_ ms: Int) -> ContinuousClock.Instant { t0 + .milliseconds(ms) }

    mutating func send(_ ms: Int, _ path: String, _ flags: RawFileEvent.Flags, cookie: UInt32 = 0) {
        coalescer.ingest(RawFileEvent(path, flags, cookie: cookie), at: at(ms))
    }

    mutating func drain(_ ms: Int) -> [WatchEvent] { coalescer.drain(at: at(ms)) }

    /// Milliseconds from `t0` to `nextDeadline`, or nil.
    var deadline: Int? {
        coalescer.nextDeadline.map { instant in
            let (seconds, attoseconds) = (instant - t0).components
            return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
        }
    }
}

/// One scripted input and the exact output expected from a single drain.
struct CoalescerCase: Sendable, CustomTestStringConvertible {
    let name: String
    let events: [(ms: Int, event: RawFileEvent)]
    let drainAt: Int
    let expected: [WatchEvent]

    var testDescription: String { name }
}

private func event(_ path: String, _ flags: RawFileEvent.Flags, cookie: UInt32 = 0) -> RawFileEvent {
    RawFileEvent(path, flags, cookie: cookie)
}

private let cases: [CoalescerCase] = [
    CoalescerCase(name: "write then close is one change",
                  events: [(0, event("a", .created)), (1, event("a", .modified)), (2, event("a", .modified)), (3, event("a", .closeWrite))],
                  drainAt: 3, expected: [.changed("a")]),
    CoalescerCase(name: "a write not yet closed and not yet quiet is held back",
                  events: [(0, event("a", .created)), (10, event("a", .modified))],
                  drainAt: 1009, expected: []),
    CoalescerCase(name: "a write quiet for the quiet period settles",
                  events: [(0, event("a", .created)), (10, event("a", .modified))],
                  drainAt: 1010, expected: [.changed("a")]),
    CoalescerCase(name: "attrib alone is a change at once",
                  events: [(0, event("a", .attrib))], drainAt: 0, expected: [.changed("a")]),
    CoalescerCase(name: "attrib during a write is folded into it",
                  events: [(0, event("a", .created)), (1, event("a", .attrib)), (2, event("a", .modified)), (3, event("a", .closeWrite))],
                  drainAt: 3, expected: [.changed("a")]),
    CoalescerCase(name: "attrib right after close collapses with the close",
                  events: [(0, event("a", .created)), (1, event("a", .closeWrite)), (2, event("a", .attrib))],
                  drainAt: 2, expected: [.changed("a")]),
    CoalescerCase(name: "a rename pair is one move at once",
                  events: [(0, event("a", .movedFrom, cookie: 7)), (0, event("b", .movedTo, cookie: 7))],
                  drainAt: 0, expected: [.moved(from: "a", to: "b")]),
    CoalescerCase(name: "an unpaired moved-from waits for the window",
                  events: [(0, event("a", .movedFrom, cookie: 7))], drainAt: 49, expected: []),
    CoalescerCase(name: "an unpaired moved-from is a removal after the window",
                  events: [(0, event("a", .movedFrom, cookie: 7))], drainAt: 50, expected: [.removed("a")]),
    CoalescerCase(name: "a file moved in from outside is a change",
                  events: [(0, event("in.txt", .movedTo, cookie: 9))], drainAt: 0, expected: [.changed("in.txt")]),
    CoalescerCase(name: "a directory moved in from outside appears",
                  events: [(0, event("dir", [.movedTo, .isDirectory], cookie: 9))], drainAt: 0, expected: [.directoryAppeared("dir")]),
    CoalescerCase(name: "a created directory appears at once",
                  events: [(0, event("d", [.created, .isDirectory]))], drainAt: 0, expected: [.directoryAppeared("d")]),
    CoalescerCase(name: "a created symlink is complete at once",
                  events: [(0, event("link", [.created, .notRegularFile]))], drainAt: 0, expected: [.changed("link")]),
    CoalescerCase(name: "deletion cancels a pending write",
                  events: [(0, event("a", .created)), (1, event("a", .modified)), (2, event("a", .deleted))],
                  drainAt: 5000, expected: [.removed("a")]),
    CoalescerCase(name: "deletion drops a queued change of the same file",
                  events: [(0, event("a", .created)), (1, event("a", .closeWrite)), (2, event("a", .deleted))],
                  drainAt: 2, expected: [.removed("a")]),
    CoalescerCase(name: "deleting a directory drops changes beneath it",
                  events: [(0, event("d/x", .created)), (0, event("d/y", .closeWrite)), (1, event("d", [.created, .isDirectory])),
                           (2, event("d/x", .deleted)), (3, event("d", [.deleted, .isDirectory]))],
                  drainAt: 5000, expected: [.removed("d/x"), .removed("d")]),
    CoalescerCase(name: "deletion does not reach back past a move of the path",
                  events: [(0, event("a", .closeWrite)), (1, event("a", .movedFrom, cookie: 3)), (1, event("b", .movedTo, cookie: 3)),
                           (2, event("b", .deleted))],
                  drainAt: 2, expected: [.changed("a"), .moved(from: "a", to: "b"), .removed("b")]),
    CoalescerCase(name: "a rename chain keeps every step, in order",
                  events: [(0, event("a", .movedFrom, cookie: 1)), (0, event("b", .movedTo, cookie: 1)),
                           (1, event("b", .movedFrom, cookie: 2)), (1, event("c", .movedTo, cookie: 2))],
                  drainAt: 1, expected: [.moved(from: "a", to: "b"), .moved(from: "b", to: "c")]),
    CoalescerCase(name: "overflow is a full rescan and drops nothing else",
                  events: [(0, event("a", .attrib)), (1, .overflow), (2, event("b", .closeWrite))],
                  drainAt: 2, expected: [.changed("a"), .rescan("", reason: "inotify queue overflowed"), .changed("b")]),
    CoalescerCase(name: "events come out in arrival order",
                  events: [(0, event("a", .closeWrite)), (1, event("x", .movedFrom, cookie: 4)), (1, event("y", .movedTo, cookie: 4)),
                           (2, event("z", .deleted)), (3, event("d", [.created, .isDirectory])), (4, event("d/f", .closeWrite))],
                  drainAt: 4,
                  expected: [.changed("a"), .moved(from: "x", to: "y"), .removed("z"), .directoryAppeared("d"), .changed("d/f")]),
    CoalescerCase(name: "repeated changes of one path collapse",
                  events: [(0, event("a", .attrib)), (1, event("b", .attrib)), (2, event("a", .attrib)), (3, event("a", .closeWrite))],
                  drainAt: 3, expected: [.changed("a"), .changed("b")]),
    CoalescerCase(name: "a change after a move of its path is not a repeat",
                  events: [(0, event("a", .attrib)), (1, event("a", .movedFrom, cookie: 5)), (1, event("b", .movedTo, cookie: 5)),
                           (2, event("a", .created)), (3, event("a", .closeWrite))],
                  drainAt: 3, expected: [.changed("a"), .moved(from: "a", to: "b"), .changed("a")]),
    CoalescerCase(name: "a change after a move of its parent is not a repeat",
                  events: [(0, event("d/f", .attrib)), (1, event("d", [.movedFrom, .isDirectory], cookie: 5)),
                           (1, event("e", [.movedTo, .isDirectory], cookie: 5)), (2, event("d", [.created, .isDirectory])),
                           (3, event("d/f", .attrib))],
                  drainAt: 3,
                  expected: [.changed("d/f"), .moved(from: "d", to: "e"), .directoryAppeared("d"), .changed("d/f")]),
    CoalescerCase(name: "the root's own deletion is a full rescan",
                  events: [(0, event("", [.deletedSelf, .isDirectory]))], drainAt: 0,
                  expected: [.rescan("", reason: "the watched folder itself was deleted, moved or unmounted")]),
    CoalescerCase(name: "self events of subdirectories and ignored watches say nothing",
                  events: [(0, event("d", [.deletedSelf, .isDirectory])), (0, event("d", [.movedSelf, .isDirectory])),
                           (0, event("d", .ignored)), (0, event("", [.attrib, .isDirectory]))],
                  drainAt: 0, expected: []),
    CoalescerCase(name: "a directory's attributes changing is a change of it",
                  events: [(0, event("d", [.attrib, .isDirectory]))], drainAt: 0, expected: [.changed("d")]),
    CoalescerCase(name: "a file moved over one being written replaces it",
                  events: [(0, event("b", .created)), (1, event("b", .modified)), (2, event("b", .movedTo, cookie: 8))],
                  drainAt: 5000, expected: [.changed("b")]),
    CoalescerCase(name: "save by rename: temp file written, then renamed over the target",
                  events: [(0, event(".a.swp", .created)), (1, event(".a.swp", .modified)), (2, event(".a.swp", .closeWrite)),
                           (3, event(".a.swp", .movedFrom, cookie: 11)), (3, event("a", .movedTo, cookie: 11))],
                  drainAt: 3, expected: [.changed(".a.swp"), .moved(from: ".a.swp", to: "a")]),
]

/// SPEC §4a "Paths are bytes": names that differ only in Unicode normalization are two
/// paths, never one path's repeat or ancestor.
private let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
private let normalizationCases: [CoalescerCase] = [
    CoalescerCase(name: "two files written whose names differ only in normalization",
                  events: [(0, event(nfc, .created)), (1, event(nfc, .closeWrite)), (2, event(nfd, .created)), (3, event(nfd, .closeWrite))],
                  drainAt: 3, expected: [.changed(nfc), .changed(nfd)]),
    CoalescerCase(name: "two writes settling together whose names differ only in normalization",
                  events: [(0, event(nfc, .created)), (1, event(nfd, .created)), (2, event(nfd, .modified))],
                  drainAt: 2000, expected: [.changed(nfc), .changed(nfd)]),
    CoalescerCase(name: "the deletion of one does not cancel the write of the other",
                  events: [(0, event(nfc, .created)), (1, event(nfd, .deleted))],
                  drainAt: 2000, expected: [.removed(nfd), .changed(nfc)]),
    // Two spellings of one name as long in bytes as each other: D with a dot above and one
    // below, composed two ways.
    CoalescerCase(name: "a folder deleted does not drop a change in its twin folder",
                  events: [(0, event("\u{1E0A}\u{323}/f", .closeWrite)), (1, event("\u{1E0C}\u{307}", [.deleted, .isDirectory]))],
                  drainAt: 1, expected: [.changed("\u{1E0A}\u{323}/f"), .removed("\u{1E0C}\u{307}")]),
    CoalescerCase(name: "a change after a move of the twin name is a repeat",
                  events: [(0, event(nfc, .attrib)), (1, event(nfd, .movedFrom, cookie: 5)), (1, event("x", .movedTo, cookie: 5)),
                           (2, event(nfc, .attrib))],
                  drainAt: 2, expected: [.changed(nfc), .moved(from: nfd, to: "x")]),
]

@Suite struct EventCoalescerTests {
    @Test(arguments: cases)
    func scripted(_ script: CoalescerCase) {
        var timeline = Timeline()
        for (ms, event) in script.events { timeline.coalescer.ingest(event, at: timeline.at(ms)) }
        #expect(timeline.drain(script.drainAt) == script.expected)
    }

    @Test(arguments: normalizationCases)
    func namesDifferingInNormalization(_ script: CoalescerCase) {
        var timeline = Timeline()
        for (ms, event) in script.events { timeline.coalescer.ingest(event, at: timeline.at(ms)) }
        let drained = timeline.drain(script.drainAt)
        // Byte for byte: `WatchEvent`'s `==` is only as strict as its paths' comparison.
        #expect(drained.map(\.byteDescription) == script.expected.map(\.byteDescription), "\(drained)")
    }

    @Test func aSettledChangeIsReportedOnlyOnce() {
        var timeline = Timeline()
        timeline.send(0, "a", .created)
        timeline.send(1, "a", .closeWrite)
        #expect(timeline.drain(1) == [.changed("a")])
        #expect(timeline.drain(5000) == [])
        #expect(timeline.coalescer.isEmpty)
    }

    @Test func aWriterThatKeepsWritingIsReportedAfterItStops() {
        var timeline = Timeline()
        timeline.send(0, "log", .created)
        for ms in stride(from: 500, through: 3000, by: 500) {
            #expect(timeline.drain(ms) == [], "nothing while writes keep coming (\(ms) ms)")
            timeline.send(ms, "log", .modified)
        }
        #expect(timeline.deadline == 4000)
        #expect(timeline.drain(3999) == [])
        #expect(timeline.drain(4000) == [.changed("log")])
        #expect(timeline.coalescer.isEmpty)
    }

    @Test func attribDuringAWriteExtendsTheQuietPeriod() {
        var timeline = Timeline()
        timeline.send(0, "a", .created)
        timeline.send(900, "a", .attrib)
        #expect(timeline.drain(1000) == [])
        #expect(timeline.drain(1900) == [.changed("a")])
    }

    @Test func theQuietPeriodIsConfigurable() {
        var timeline = Timeline(quietPeriod: .milliseconds(200))
        timeline.send(0, "a", .modified)
        #expect(timeline.deadline == 200)
        #expect(timeline.drain(199) == [])
        #expect(timeline.drain(200) == [.changed("a")])
    }

    @Test func aPendingMoveHoldsBackWhatCameAfterIt() {
        var timeline = Timeline()
        timeline.send(0, "a", .movedFrom, cookie: 1)
        timeline.send(10, "x", .attrib)
        #expect(timeline.drain(10) == [])
        #expect(timeline.deadline == 50)
        #expect(timeline.drain(50) == [.removed("a"), .changed("x")])
    }

    @Test func aRenamePairSplitAcrossDrainsIsStillOneMove() {
        var timeline = Timeline()
        timeline.send(0, "a", .movedFrom, cookie: 1)
        #expect(timeline.drain(1) == [])
        timeline.send(20, "b", .movedTo, cookie: 1)
        #expect(timeline.drain(20) == [.moved(from: "a", to: "b")])
        #expect(timeline.coalescer.isEmpty)
    }

    @Test func aMovedToAfterTheWindowIsAMoveInFromOutside() {
        var timeline = Timeline()
        timeline.send(0, "a", .movedFrom, cookie: 1)
        #expect(timeline.drain(60) == [.removed("a")])
        timeline.send(70, "b", .movedTo, cookie: 1)
        #expect(timeline.drain(70) == [.changed("b")])
    }

    @Test func aFileMovedWhileBeingWrittenSettlesUnderItsNewName() {
        var timeline = Timeline()
        timeline.send(0, "a", .created)
        timeline.send(100, "a", .modified)
        timeline.send(200, "a", .movedFrom, cookie: 1)
        timeline.send(200, "b", .movedTo, cookie: 1)
        #expect(timeline.drain(200) == [.moved(from: "a", to: "b")])
        #expect(!timeline.coalescer.isEmpty)
        #expect(timeline.deadline == 1100, "the write keeps its own quiet period")
        #expect(timeline.drain(1100) == [.changed("b")])
        #expect(timeline.coalescer.isEmpty)
    }

    @Test func aFileMovedWhileBeingWrittenAndThenClosedIsOneChangeOfTheNewName() {
        var timeline = Timeline()
        timeline.send(0, "a", .created)
        timeline.send(1, "a", .movedFrom, cookie: 1)
        timeline.send(1, "b", .movedTo, cookie: 1)
        timeline.send(2, "b", .closeWrite)
        #expect(timeline.drain(2) == [.moved(from: "a", to: "b"), .changed("b")])
        #expect(timeline.drain(5000) == [])
    }

    @Test func aFileMovedOutWhileBeingWrittenIsForgotten() {
        var timeline = Timeline()
        timeline.send(0, "a", .created)
        timeline.send(1, "a", .movedFrom, cookie: 1)
        #expect(timeline.drain(100) == [.removed("a")])
        #expect(timeline.coalescer.isEmpty)
        #expect(timeline.drain(5000) == [])
    }

    @Test func aDirectoryMoveCarriesPendingWritesBeneathIt() {
        var timeline = Timeline()
        timeline.send(0, "d/x", .created)
        timeline.send(0, "d/sub/y", .modified)
        timeline.send(0, "dx", .modified)  // a sibling whose name only starts like the directory
        timeline.send(10, "d", [.movedFrom, .isDirectory], cookie: 2)
        timeline.send(10, "e", [.movedTo, .isDirectory], cookie: 2)
        #expect(timeline.drain(10) == [.moved(from: "d", to: "e")])
        #expect(timeline.drain(1000) == [.changed("dx"), .changed("e/sub/y"), .changed("e/x")])
    }

    @Test func deletingADirectoryCancelsEverythingPendingBeneathIt() {
        var timeline = Timeline()
        timeline.send(0, "d/x", .created)
        timeline.send(0, "d/sub/y", .modified)
        timeline.send(0, "dx", .modified)
        timeline.send(5, "d", [.deleted, .isDirectory])
        #expect(timeline.drain(5) == [.removed("d")])
        #expect(timeline.drain(1000) == [.changed("dx")])
        #expect(timeline.coalescer.isEmpty)
    }

    @Test func overflowKeepsPendingWrites() {
        var timeline = Timeline()
        timeline.send(0, "a", .created)
        timeline.send(1, "", .overflow)
        #expect(timeline.drain(1) == [.rescan("", reason: "inotify queue overflowed")])
        #expect(timeline.drain(1000) == [.changed("a")])
    }

    @Test func rescansRequestedByTheWatcherAreQueuedInOrderAndCollapse() {
        var timeline = Timeline()
        timeline.send(0, "a", .closeWrite)
        timeline.coalescer.rescan("d", reason: "bad name", at: timeline.at(0))
        timeline.coalescer.rescan("d", reason: "bad name", at: timeline.at(1))
        timeline.send(2, "b", .closeWrite)
        #expect(timeline.drain(2) == [.changed("a"), .rescan("d", reason: "bad name"), .changed("b")])
    }

    @Test func nextDeadlineTracksTheNearestThingToDo() {
        var timeline = Timeline()
        #expect(timeline.deadline == nil)
        timeline.send(0, "a", .created)
        #expect(timeline.deadline == 1000)
        timeline.send(300, "b", .modified)
        #expect(timeline.deadline == 1000)
        timeline.send(400, "c", .movedFrom, cookie: 1)
        #expect(timeline.deadline == 450)
        #expect(timeline.drain(450) == [.removed("c")])
        #expect(timeline.deadline == 1000)
        timeline.send(500, "d", .closeWrite)
        #expect(timeline.deadline == 500, "a ready event is due at once")
        #expect(timeline.drain(500) == [.changed("d")])
        #expect(timeline.drain(1000) == [.changed("a")])
        #expect(timeline.deadline == 1300)
        #expect(timeline.drain(1300) == [.changed("b")])
        #expect(timeline.deadline == nil)
    }

    @Test func isEmptyOnlyWhenNothingIsPending() {
        var timeline = Timeline()
        #expect(timeline.coalescer.isEmpty)
        timeline.send(0, "a", .created)
        #expect(!timeline.coalescer.isEmpty, "a write in progress")
        timeline.send(1, "a", .closeWrite)
        #expect(!timeline.coalescer.isEmpty, "a change not yet drained")
        _ = timeline.drain(1)
        #expect(timeline.coalescer.isEmpty)
        timeline.send(2, "b", .movedFrom, cookie: 3)
        #expect(!timeline.coalescer.isEmpty, "a rename waiting for its second half")
        _ = timeline.drain(2)
        #expect(!timeline.coalescer.isEmpty)
        _ = timeline.drain(52)
        #expect(timeline.coalescer.isEmpty)
    }

    @Test func manyFilesCopiedAtOnceComeOutOncePerFileInOrder() {
        var timeline = Timeline()
        let names = (0..<500).map { "tree/f\($0)" }
        timeline.send(0, "tree", [.created, .isDirectory])
        for name in names {
            timeline.send(1, name, .created)
            timeline.send(1, name, .modified)
            timeline.send(1, name, .closeWrite)
            timeline.send(1, name, .attrib)
        }
        #expect(timeline.drain(1) == [.directoryAppeared("tree")] + names.map { .changed($0) })
        #expect(timeline.coalescer.isEmpty)
    }

    @Test(arguments: [("a", "a", true), ("a/b", "a", true), ("ab", "a", false), ("a", "a/b", false), ("x/y", "", true), ("é/ü", "é", true)])
    func pathsAreComparedByWholeComponents(_ path: String, _ ancestor: String, _ expected: Bool) {
        #expect(EventCoalescer.isSameOrUnder(path, ancestor) == expected)
    }
}

extension WatchEvent {
    /// The event with its paths as UTF-8 bytes, for comparing without folding.
    var byteDescription: String {
        func bytes(_ path: String) -> String { path.utf8.map { String($0, radix: 16) }.joined(separator: " ") }
        switch self {
        case .changed(let path): return "changed \(bytes(path))"
        case .directoryAppeared(let path): return "appeared \(bytes(path))"
        case .removed(let path): return "removed \(bytes(path))"
        case .moved(let from, let to): return "moved \(bytes(from)) -> \(bytes(to))"
        case .rescan(let path, let reason): return "rescan \(bytes(path)) \(reason)"
        }
    }
}
