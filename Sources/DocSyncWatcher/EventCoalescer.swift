import DocSyncCore

/// Turns raw inotify events into the few `WatchEvent`s the engine needs, in an order that is
/// safe to apply one after another.
///
/// A pure value: no I/O and no clock reads. Time comes in as a monotonic instant with every
/// call, so the same inputs give the same outputs. A caller may rely on:
///
/// - A file being written (`created`/`modified`) is reported once, as `.changed`, when it
///   settles: at the first `drain` after its `closeWrite`, or once `quietPeriod` has passed
///   with no event for it (a writer that keeps the file open). `attrib` during a write is
///   folded into the write; `attrib` alone is a `.changed` at the next drain.
/// - `movedFrom` + `movedTo` with one cookie are one `.moved(from:to:)` at the next drain;
///   pending writes of the old path (and, for a directory, beneath it) continue under the
///   new path. A `movedFrom` with no partner within `moveWindow` becomes `.removed`; until
///   then it holds back the events queued after it, so the order stays true. A `movedTo`
///   with no partner (moved in from outside) is `.changed`, or `.directoryAppeared` for a
///   directory. A created directory is `.directoryAppeared` at the next drain.
/// - `deleted` is `.removed`, and cancels pending writes at and beneath the path (and
///   `.changed` still queued for them since the last event that moved or removed them).
/// - `overflow` is `.rescan("")`; nothing else is dropped. Self events of the root
///   (deleted, moved, unmounted) are `.rescan("")` too; self events of other directories
///   are ignored, since their parent reports the same change by name.
/// - Within one drain, a `.changed`, `.directoryAppeared` or `.rescan` equal to one already
///   returned is left out unless a `.moved` or `.removed` of that path or one of its
///   ancestors came between.
/// - Paths are bytes (SPEC §4a): names that differ only in Unicode normalization are two
///   paths, never one path's repeat, ancestor or pending write.
/// - `nextDeadline` is when `drain` has something new to give (nil: nothing pending, only
///   a new event can change that); `isEmpty` is true when nothing at all is pending.
public struct EventCoalescer: Sendable {
    public typealias Instant = ContinuousClock.Instant

    /// How long a file being written must see no event before it counts as settled.
    public let quietPeriod: Duration
    /// How long a `movedFrom` waits for its `movedTo` before it counts as moved out.
    public let moveWindow: Duration

    /// Events in arrival order; `movedFrom` slots are resolved in place.
    private var queue: [Slot] = []
    /// Sequence number of `queue[0]`: a slot keeps its number while the queue is drained.
    private var firstSequence = 0
    /// Unresolved `movedFrom` slots by cookie, as sequence numbers.
    private var unresolvedMoves: [UInt32: Int] = [:]
    /// Files being written: path → instant of the last event for it.
    private var pendingWrites: [PathKey: Instant] = [:]

    /// How far back a deletion looks for `.changed` events it makes pointless.
    private static let cancelLookBack = 64

    public init(quietPeriod: Duration = .seconds(1), moveWindow: Duration = .milliseconds(50)) {
        self.quietPeriod = quietPeriod
        self.moveWindow = moveWindow
    }

    private enum Slot: Sendable {
        case ready(WatchEvent, since: Instant)
        case movedFrom(PendingMove)
    }

    private struct PendingMove: Sendable {
        var path: String
        var isDirectory: Bool
        var deadline: Instant
        /// Pending writes that moved with the item, by their path below it ("" for itself).
        var carried: [PathKey: Instant]
    }

    // MARK: - State a caller may ask about

    /// True when nothing is pending: no unsettled write, no unpaired move, nothing to drain.
    public var isEmpty: Bool { queue.isEmpty && pendingWrites.isEmpty }

    /// When `drain` should next be called; an instant in the past means "now". Nil when
    /// nothing is pending.
    public var nextDeadline: Instant? {
        var deadline: Instant?
        switch queue.first {
        case .ready(_, let since): deadline = since
        case .movedFrom(let move): deadline = move.deadline
        case nil: break
        }
        for (_, lastActivity) in pendingWrites {
            let settles = lastActivity + quietPeriod
            if deadline.map({ settles < $0 }) ?? true { deadline = settles }
        }
        return deadline
    }

    // MARK: - Input

    /// Takes in one raw event that happened at `now` (instants must not go backwards).
    public mutating func ingest(_ event: RawFileEvent, at now: Instant) {
        let flags = event.flags
        let path = event.path
        if flags.contains(.overflow) {
            append(.rescan("", reason: "inotify queue overflowed"), at: now)
            return
        }
        if flags.contains(.ignored) { return }
        if path.isEmpty {
            if !flags.isDisjoint(with: [.deletedSelf, .movedSelf, .unmounted]) {
                append(.rescan("", reason: "the watched folder itself was deleted, moved or unmounted"), at: now)
            }
            return  // other events on the root itself (attrib) say nothing about its content
        }
        if flags.contains(.unmounted) {
            append(.rescan(path, reason: "the file system under this directory was unmounted"), at: now)
            return
        }
        if !flags.isDisjoint(with: [.deletedSelf, .movedSelf]) { return }  // the parent reports it by name
        let isDirectory = flags.contains(.isDirectory)
        if flags.contains(.movedFrom) {
            movedFrom(path, cookie: event.cookie, isDirectory: isDirectory, at: now)
        } else if flags.contains(.movedTo) {
            movedTo(path, cookie: event.cookie, isDirectory: isDirectory, at: now)
        } else if flags.contains(.deleted) {
            removed(path, at: now)
        } else if isDirectory {
            if flags.contains(.created) {
                dropPendingWrites(atOrUnder: path)
                append(.directoryAppeared(path), at: now)
            } else if flags.contains(.attrib) {
                append(.changed(path), at: now)
            }
        } else {
            fileChanged(path, flags, at: now)
        }
    }

    /// Queues `.rescan(path, reason:)` for the next drain (a watch that could not be added,
    /// a name that is not UTF-8): events under `path` may have been lost.
    public mutating func rescan(_ path: String, reason: String, at now: Instant) {
        append(.rescan(path, reason: reason), at: now)
    }

    private mutating func fileChanged(_ path: String, _ flags: RawFileEvent.Flags, at now: Instant) {
        let key = PathKey(path)
        if flags.contains(.created) && flags.contains(.notRegularFile) {
            pendingWrites.removeValue(forKey: key)
            append(.changed(path), at: now)
            return
        }
        if !flags.isDisjoint(with: [.created, .modified]) {
            pendingWrites[key] = now
        }
        if flags.contains(.attrib) {
            if pendingWrites[key] != nil {
                pendingWrites[key] = now  // folded into the write
            } else if !flags.contains(.closeWrite) {
                append(.changed(path), at: now)
            }
        }
        if flags.contains(.closeWrite) {
            pendingWrites.removeValue(forKey: key)
            append(.changed(path), at: now)
        }
    }

    private mutating func movedFrom(_ path: String, cookie: UInt32, isDirectory: Bool, at now: Instant) {
        if let stale = unresolvedMoves[cookie] { resolveAsRemoved(sequence: stale, cookie: cookie) }
        var carried: [PathKey: Instant] = [:]
        for (pending, lastActivity) in pendingWrites where Self.isSameOrUnder(pending.string, path) {
            // The part below `path`, cut by bytes (a `String` count is of characters).
            carried[PathKey(String(decoding: pending.string.utf8.dropFirst(path.utf8.count), as: UTF8.self))] = lastActivity
        }
        for suffix in carried.keys { pendingWrites.removeValue(forKey: PathKey(path + suffix.string)) }
        unresolvedMoves[cookie] = firstSequence + queue.count
        queue.append(.movedFrom(PendingMove(path: path, isDirectory: isDirectory, deadline: now + moveWindow, carried: carried)))
    }

    private mutating func movedTo(_ path: String, cookie: UInt32, isDirectory: Bool, at now: Instant) {
        dropPendingWrites(atOrUnder: path)  // whatever was there has been replaced
        if let sequence = unresolvedMoves.removeValue(forKey: cookie), case .movedFrom(let move) = queue[sequence - firstSequence] {
            queue[sequence - firstSequence] = .ready(.moved(from: move.path, to: path), since: now)
            for (suffix, lastActivity) in move.carried { pendingWrites[PathKey(path + suffix.string)] = lastActivity }
        } else {
            append(isDirectory ? .directoryAppeared(path) : .changed(path), at: now)
        }
    }

    private mutating func removed(_ path: String, at now: Instant) {
        dropPendingWrites(atOrUnder: path)
        cancelQueuedChanges(atOrUnder: path)
        append(.removed(path), at: now)
    }

    // MARK: - Output

    /// Returns, in order, the events that are ready at `now`, and forgets them.
    public mutating func drain(at now: Instant) -> [WatchEvent] {
        for (cookie, sequence) in unresolvedMoves {
            if case .movedFrom(let move) = queue[sequence - firstSequence], move.deadline <= now {
                resolveAsRemoved(sequence: sequence, cookie: cookie)
            }
        }
        let settled = pendingWrites.filter { $0.value + quietPeriod <= now }
            .sorted { ($0.value, $0.key) < ($1.value, $1.key) }
        for (path, lastActivity) in settled {
            pendingWrites.removeValue(forKey: path)
            append(.changed(path.string), at: lastActivity + quietPeriod)
        }
        var ready = 0
        while ready < queue.count, case .ready = queue[ready] { ready += 1 }
        guard ready > 0 else { return [] }
        var output = OrderedOutput()
        for case .ready(let event, _) in queue[..<ready] { output.add(event) }
        queue.removeFirst(ready)
        firstSequence += ready
        return output.events
    }

    // MARK: - Helpers

    private mutating func append(_ event: WatchEvent, at now: Instant) {
        queue.append(.ready(event, since: now))
    }

    /// A `movedFrom` whose partner never came: the item left the folder.
    private mutating func resolveAsRemoved(sequence: Int, cookie: UInt32) {
        unresolvedMoves.removeValue(forKey: cookie)
        guard case .movedFrom(let move) = queue[sequence - firstSequence] else { return }
        queue[sequence - firstSequence] = .ready(.removed(move.path), since: move.deadline)
    }

    private mutating func dropPendingWrites(atOrUnder path: String) {
        pendingWrites.removeValue(forKey: PathKey(path))
        guard !pendingWrites.isEmpty else { return }
        for pending in pendingWrites.keys where Self.isSameOrUnder(pending.string, path) {
            pendingWrites.removeValue(forKey: pending)
        }
    }

    /// Drops queued `.changed`/`.directoryAppeared` at or under `path` that came after the
    /// last move touching it and the last removal of it or an ancestor: `path` is about to
    /// be removed, so they would only send the engine to look at nothing. Stops at any
    /// pending move, so no slot changes its place.
    private mutating func cancelQueuedChanges(atOrUnder path: String) {
        var index = queue.count - 1
        let stop = max(0, queue.count - Self.cancelLookBack)
        while index >= stop {
            guard case .ready(let event, _) = queue[index] else { return }
            switch event {
            case .changed(let other), .directoryAppeared(let other):
                if Self.isSameOrUnder(other, path) { queue.remove(at: index) }
            case .removed(let other):
                if Self.isSameOrUnder(path, other) { return }  // an earlier life of `path`
            case .rescan:
                break  // never dropped, never in the way
            case .moved(let from, let to):
                if Self.related(from, path) || Self.related(to, path) { return }
            }
            index -= 1
        }
    }

    /// `path` is `ancestor` or lies beneath it ("" is the root, above everything), by bytes.
    static func isSameOrUnder(_ path: String, _ ancestor: String) -> Bool {
        path.isSamePathOrBeneath(ancestor)
    }

    static func related(_ a: String, _ b: String) -> Bool { isSameOrUnder(a, b) || isSameOrUnder(b, a) }
}

/// The output of one drain, with repeats left out (see `EventCoalescer`).
private struct OrderedOutput {
    private enum Key: Hashable {
        case changed(PathKey), appeared(PathKey), rescan(PathKey)
    }

    private(set) var events: [WatchEvent] = []
    /// Index of the last output that moved or removed each path.
    private var lastBarrier: [PathKey: Int] = [:]
    /// Index of the last output of each repeatable event.
    private var lastEmitted: [Key: Int] = [:]

    mutating func add(_ event: WatchEvent) {
        let index = events.count
        switch event {
        case .changed(let path): if isRepeat(.changed(PathKey(path)), path) { return }
        case .directoryAppeared(let path):
            if isRepeat(.appeared(PathKey(path)), path) { return }
            lastBarrier[PathKey(path)] = index
        case .rescan(let path, _): if isRepeat(.rescan(PathKey(path)), path) { return }
        case .removed(let path): lastBarrier[PathKey(path)] = index
        case .moved(let from, let to):
            lastBarrier[PathKey(from)] = index
            lastBarrier[PathKey(to)] = index
        }
        switch event {
        case .changed(let path): lastEmitted[.changed(PathKey(path))] = index
        case .directoryAppeared(let path): lastEmitted[.appeared(PathKey(path))] = index
        case .rescan(let path, _): lastEmitted[.rescan(PathKey(path))] = index
        case .removed, .moved: break
        }
        events.append(event)
    }

    /// True when `key` was output before and nothing since moved or removed `path` or an
    /// ancestor of it.
    private func isRepeat(_ key: Key, _ path: String) -> Bool {
        guard let previous = lastEmitted[key] else { return false }
        var current = Substring(path)
        while true {
            if let barrier = lastBarrier[PathKey(current)], barrier > previous { return false }
            guard let slash = current.lastIndex(of: "/") else { return true }
            current = current[..<slash]
        }
    }
}
