import Foundation
import Logging
import Synchronization

/// Watches one folder recursively with inotify and yields coalesced `WatchEvent`s.
///
/// A caller may rely on:
/// - `start()` returns once every directory in the folder is watched: a scan started after
///   it returns, together with the events that follow, misses no change. It throws a
///   `WatcherError` that says what to do when the folder cannot be watched at all.
/// - Events follow the rules of `EventCoalescer`: a file being written is reported once
///   when it settles (closed, or quiet for `quietPeriod`); renames inside the folder are
///   `.moved`; a new directory is watched before its `.directoryAppeared` is yielded; events
///   that may have been lost (queue overflow, a directory that cannot be watched, a name
///   that is not UTF-8) are a `.rescan` and a warning, never silence. Symlinks are never
///   followed into other trees.
/// - `stop()` removes the folder's watches and finishes the stream before it returns;
///   nothing is yielded after that (events yielded before are still handed out). The
///   stream has one consumer; cancelling its task ends the stream and the watching.
/// - `isQuiet` is safe from any thread and true only when nothing this watcher could still
///   report is pending: the kernel queue is empty, no event is taken from it but not yet
///   coalesced, no write is unsettled, no rename unpaired, and the stream's consumer has
///   taken every event yielded and asked for the next one since: a consumer that hands each
///   event on (`for await event in stream { hand(event) }`) has handed it on by then, so
///   what the watcher saw is always either not quiet here or wherever it was handed.
/// - Several watchers may run in one process, on folders that do not contain each other:
///   they share one dedicated thread, the only one that calls libinotifytools.
public final class InotifyWatcher: Sendable {
    /// The folder as given.
    public let root: URL
    /// How long a file being written with no new event counts as settled.
    public let quietPeriod: Duration
    /// Files whose name starts with this are never reported (a daemon's own temporary files).
    public let ignoredFilePrefix: String?
    /// Files named with this are never reported, nor is their rename to another name in the
    /// same directory (see `init`).
    public let ownRenamePrefix: String?

    private let logger: Logger
    private let status = WatcherStatus()
    private let state = Mutex(Phase.idle)

    private enum Phase {
        case idle, starting, started(UInt64, EventBuffer), stopped
    }

    /// Watches `root`; files (not directories) whose name starts with `ignoredFilePrefix` are
    /// left out of every event: a rename of such a file to another name is reported as that
    /// name `.changed`.
    ///
    /// Files whose name starts with `ownRenamePrefix` are left out the same way, and so is
    /// a rename of such a file to another name in the same directory, neither half: that is
    /// a daemon moving its own temporary file into place, which it records itself. This is a
    /// saving, not a promise: were the second half to come over 5 s and a further read of the
    /// queue after the first, or the watches to be renewed between the halves, the new name
    /// would be reported as usual, which costs the daemon one look. The prefix must be one
    /// no other program's files have: the daemon's carries a random tag of its process.
    public init(root: URL, logger: Logger, quietPeriod: Duration = .seconds(1), ignoredFilePrefix: String? = nil, ownRenamePrefix: String? = nil) {
        self.root = root
        self.logger = logger
        self.quietPeriod = quietPeriod
        self.ignoredFilePrefix = ignoredFilePrefix.flatMap { $0.isEmpty ? nil : $0 }
        self.ownRenamePrefix = ownRenamePrefix.flatMap { $0.isEmpty ? nil : $0 }
    }

    deinit { stop() }

    /// Watches the folder and everything beneath it; blocks until that is done (a moment
    /// for most folders, longer for hundreds of thousands of directories). Call it once.
    public func start() throws(WatcherError) -> AsyncStream<WatchEvent> {
        let path = try Self.resolve(root)
        let hub = InotifyHub.shared
        let id = hub.newID()
        try state.withLock { phase throws(WatcherError) in
            guard case .idle = phase else {
                throw WatcherError(.alreadyStarted, path: path, "the watcher of \(path) was started already; make a new watcher to watch again")
            }
            phase = .starting
        }
        var logger = self.logger
        logger[metadataKey: "folder"] = "\(path)"
        let events = EventBuffer(onCancel: { hub.unsubscribe(id) })
        do throws(WatcherError) {
            try hub.subscribe(.init(id: id, root: path, quietPeriod: quietPeriod, ignoredFilePrefix: ignoredFilePrefix,
                                    ownRenamePrefix: ownRenamePrefix, events: events,
                                    logger: logger, status: status, reply: Reply()))
        } catch {
            state.withLock { $0 = .stopped }
            throw error
        }
        let wanted = state.withLock { phase in
            guard case .starting = phase else { return false }  // stopped meanwhile
            phase = .started(id, events)
            return true
        }
        if !wanted { hub.unsubscribe(id, wait: true) }
        return AsyncStream(unfolding: { await events.next() })
    }

    /// Stops watching: when it returns, the folder's watches are gone, the stream has
    /// finished, and nothing more is yielded. Safe to call more than once.
    public func stop() {
        let id: UInt64? = state.withLock { phase in
            defer { phase = .stopped }
            if case .started(let id, _) = phase { return id }
            return nil
        }
        if let id { InotifyHub.shared.unsubscribe(id, wait: true) }
    }

    /// True when nothing is pending that this watcher could still report (see above).
    public var isQuiet: Bool {
        guard case .started(let id, let events) = state.withLock({ $0 }) else { return true }
        // The hub first: once it is quiet, everything it will yield is in the buffer.
        return InotifyHub.shared.isQuiet(id) && events.isEmpty
    }

    /// The hub's id of this watcher while it is started (for tests).
    var subscriptionID: UInt64? {
        guard case .started(let id, _) = state.withLock({ $0 }) else { return nil }
        return id
    }

    /// The most recent warnings (up to 50), oldest first: things a person should know,
    /// such as a reached watch limit. Each is also logged.
    public var warnings: [String] { status.warnings }

    /// The folder's absolute path with symlinks resolved, or why it cannot be watched.
    private static func resolve(_ root: URL) throws(WatcherError) -> String {
        let given = root.path
        guard let resolved = realpath(given, nil) else {
            let code = errno
            switch code {
            case ENOENT: throw WatcherError(.folderNotFound, path: given, "cannot watch \(given): it does not exist; create it or fix the configured path")
            case ENOTDIR: throw WatcherError(.notADirectory, path: given, "cannot watch \(given): a part of the path is not a directory")
            case EACCES: throw WatcherError(.permissionDenied, path: given, "cannot watch \(given): permission denied on the path; make it readable by this user")
            default: throw WatcherError(.failed, path: given, "cannot watch \(given): \(String(cString: strerror(code)))")
            }
        }
        defer { free(resolved) }
        let path = String(cString: resolved)
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw WatcherError(.notADirectory, path: path, "cannot watch \(path): it is not a directory; configure a directory")
        }
        return path
    }
}
