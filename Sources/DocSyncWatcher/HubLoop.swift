import CInotifyTools
import DocSyncCore
import Foundation
import Logging

/// The body of `InotifyHub`'s thread: everything here runs on that one thread, so it may
/// call libinotifytools freely. Nothing here is shared; other threads talk to it only
/// through the hub's command queue.
///
/// Each pass: run commands; poll(2) the inotify descriptor (and the wake eventfd) with a
/// millisecond timeout from the nearest coalescer or move deadline; read every queued
/// event at once; keep the watch table true (new directories watched before they are
/// reported, renamed directories renamed in the table); feed the coalescers; drain them
/// and yield; after a pass that read events, pause a millisecond so the next ones come
/// together. Directory watches are added before the directory's `.directoryAppeared` or
/// `.moved` is yielded, so a scan that follows misses nothing.
final class HubLoop {
    private let hub: InotifyHub
    private let library = InotifyLibrary()
    private var subscriptions: [Subscription] = []
    /// First halves of own renames (see `isOwnRename`) by cookie: the directory's watch, the
    /// read that took it, and until when the second half may come.
    private var ownRenames: [UInt32: (wd: Int32, read: Int, deadline: ContinuousClock.Instant)] = [:]
    /// Reads of the inotify queue so far.
    private var reads = 0
    /// Directory renames seen by their first half, by cookie.
    private var directoryMoves: [UInt32: DirectoryMove] = [:]
    private var buffer = [UInt8](repeating: 0, count: 256 * 1024)
    /// How long the second half of a directory rename may take to arrive.
    private let moveWindow: Duration = .milliseconds(50)
    /// How long the first half of an own rename waits for its second. The kernel queues the
    /// halves from two calls, and a loaded machine can leave the renaming thread off the CPU
    /// between them for longer than `moveWindow` (a full test run showed it); an unmatched
    /// first half is never reported, so waiting long costs nothing but its few bytes.
    private let ownRenameWindow: Duration = .seconds(5)

    private final class Subscription {
        let id: UInt64
        let root: String
        /// `root` + "/": the table paths of the folder's directories start with it.
        let prefix: String
        var coalescer: EventCoalescer
        /// Files named with this prefix are dropped before coalescing.
        let ignoredFilePrefix: String?
        /// Files named with this prefix are dropped too; one renamed from such a name to
        /// another in the same directory is the daemon's own write moved into place: neither
        /// half of that rename is reported.
        let ownRenamePrefix: [UInt8]?
        let events: EventBuffer
        let logger: Logger
        let status: WatcherStatus
        /// Directories already warned about for names that are not UTF-8.
        var warnedBadNames: Set<PathKey> = []
        /// Whether the watch limit was reported already.
        var warnedWatchLimit = false

        init(_ request: InotifyHub.SubscribeRequest) {
            id = request.id
            root = request.root
            prefix = request.root + "/"
            coalescer = EventCoalescer(quietPeriod: request.quietPeriod)
            ignoredFilePrefix = request.ignoredFilePrefix
            ownRenamePrefix = request.ownRenamePrefix.map { Array($0.utf8) }
            events = request.events
            logger = request.logger
            status = request.status
        }

        /// The folder-relative form of an absolute path inside the folder (no trailing slash).
        func relative(_ absolute: String) -> String {
            absolute.bytesEqual(root) ? "" : String(decoding: absolute.utf8.dropFirst(prefix.utf8.count), as: UTF8.self)
        }
    }

    private enum DirectoryMove {
        /// The second half came right after the first: the table already has the new path.
        case renamed
        /// Entries moved to an internal name until the second half comes or time runs out.
        case parked(String, deadline: ContinuousClock.Instant)
        /// Too many directories to rename: their watches were removed; watch afresh on arrival.
        case dropped(deadline: ContinuousClock.Instant)

        var deadline: ContinuousClock.Instant? {
            switch self {
            case .renamed: nil
            case .parked(_, let deadline), .dropped(let deadline): deadline
            }
        }
    }

    init(hub: InotifyHub) {
        self.hub = hub
    }

    // MARK: - The loop

    func run() {
        while true {
            for command in hub.takeCommands() { perform(command) }
            if subscriptions.isEmpty {
                directoryMoves = [:]
                ownRenames = [:]
                hub.setDescriptor(-1)
                library.shutdown()
                if hub.finishIfIdle() { return }
                continue
            }
            if library.needsRebuild {
                rebuild(reason: "too many directories were deleted while watched; watches were renewed", at: .now)
            }
            var fds = [
                pollfd(fd: library.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: hub.wakeDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, nfds_t(fds.count), pollTimeout(from: .now))
            if ready < 0 && errno != EINTR {
                logEveryone(.error, "poll on the inotify descriptor failed: \(String(cString: strerror(errno)))")
                usleep(100_000)  // do not spin on a lasting failure
            }
            if fds[1].revents != 0 {
                var count: UInt64 = 0
                _ = read(hub.wakeDescriptor, &count, MemoryLayout<UInt64>.size)
            }
            var readSome = false
            if fds[0].revents != 0 {
                hub.setBusy()
                readSome = readAndProcess() > 0
            }
            let now = ContinuousClock.now
            expirePendingMoves(at: now)
            drainAll(at: now)
            // Events come in runs (a saved file is several, a tree being written thousands):
            // after a pass that read some, the next ones gather for `gatherPause`, so a pass
            // takes many at once rather than a wake-up, a poll and reads for every few. What
            // was read is already yielded; an event that follows waits at most that much more.
            if readSome { usleep(Self.gatherPause) }
        }
    }

    /// Milliseconds until the nearest deadline (rounded up), or -1 for none.
    private func pollTimeout(from now: ContinuousClock.Instant) -> Int32 {
        var nearest: ContinuousClock.Instant?
        for subscription in subscriptions {
            if let deadline = subscription.coalescer.nextDeadline { nearest = min(nearest ?? deadline, deadline) }
        }
        for move in directoryMoves.values {
            if let deadline = move.deadline { nearest = min(nearest ?? deadline, deadline) }
        }
        guard let nearest else { return -1 }
        let remaining = nearest - now
        if remaining <= .zero { return 0 }
        let (seconds, attoseconds) = remaining.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }

    private func drainAll(at now: ContinuousClock.Instant) {
        var pending: [UInt64: Bool] = [:]
        for subscription in subscriptions {
            for event in subscription.coalescer.drain(at: now) {
                subscription.logger.trace("watch event", metadata: ["event": "\(event)"])
                subscription.events.yield(event)
            }
            pending[subscription.id] = !subscription.coalescer.isEmpty
        }
        hub.finishBatch(pending: pending)
    }

    // MARK: - Commands

    private func perform(_ command: InotifyHub.Command) {
        switch command {
        case .subscribe(let request):
            do throws(WatcherError) {
                try add(request)
                request.reply.send(.success(()))
            } catch {
                request.reply.send(.failure(error))
            }
        case .unsubscribe(let id, let done):
            defer { done.send(.success(())) }
            guard let index = subscriptions.firstIndex(where: { $0.id == id }) else { return }
            let subscription = subscriptions.remove(at: index)
            if subscriptions.isEmpty {
                directoryMoves = [:]
                ownRenames = [:]
                hub.setDescriptor(-1)
                library.shutdown()
            } else {
                for (wd, _) in library.liveWatches(under: subscription.prefix) { library.removeWatch(wd) }
            }
            hub.forget(id)
            subscription.events.finish()
            subscription.logger.debug("stopped watching", metadata: ["path": "\(subscription.root)"])
        case .call(let body):
            body()
        }
    }

    private func add(_ request: InotifyHub.SubscribeRequest) throws(WatcherError) {
        let root = request.root
        if let other = subscriptions.first(where: { EventCoalescer.related($0.root, root) }) {
            throw WatcherError(.overlapsWatchedFolder, path: root,
                               "cannot watch \(root): it overlaps \(other.root), which this process watches already; "
                                   + "a folder can be synced only once, so choose folders that do not contain each other")
        }
        do throws(POSIXError) {
            try library.initialize()
        } catch {
            throw WatcherError(.inotifyUnavailable, path: root,
                               "cannot watch \(root): inotify could not start (\(Self.describe(error))); \(InotifyLimits.instanceAdvice)")
        }
        let subscription = Subscription(request)
        do throws(WatcherError) {
            try watchRoot(subscription)
        } catch {
            if subscriptions.isEmpty { library.shutdown() }
            throw error
        }
        subscriptions.append(subscription)
        watchTree(below: root, in: subscription, at: .now)
        hub.finishBatch(pending: [subscription.id: !subscription.coalescer.isEmpty])
        subscription.logger.debug("watching", metadata: ["path": "\(root)"])
    }

    /// Watches a subscription's root directory itself (not beneath it) and makes sure the
    /// library's descriptor is known.
    private func watchRoot(_ subscription: Subscription) throws(WatcherError) {
        let root = subscription.root
        let wd: Int32
        do throws(POSIXError) {
            wd = try library.addWatch(root)
        } catch {
            switch error.code {
            case .ENOENT: throw WatcherError(.folderNotFound, path: root, "cannot watch \(root): it does not exist; create it or fix the configured path")
            case .ENOTDIR: throw WatcherError(.notADirectory, path: root, "cannot watch \(root): it is not a directory; configure a directory")
            case .EACCES, .EPERM:
                throw WatcherError(.permissionDenied, path: root, "cannot watch \(root): permission denied; make it readable by this user (chmod u+rx)")
            case .ENOSPC: throw WatcherError(.watchLimitReached, path: root, "cannot watch \(root): \(InotifyLimits.watchLimitAdvice)")
            default: throw WatcherError(.failed, path: root, "cannot watch \(root): \(Self.describe(error))")
            }
        }
        guard library.descriptor < 0 else { return }
        var info = stat()
        guard stat(root, &info) == 0, library.discoverDescriptor(wd: wd, inode: UInt64(info.st_ino)) else {
            throw WatcherError(.failed, path: root,
                               "cannot watch \(root): libinotifytools' inotify descriptor could not be found in /proc/self/fd; is /proc mounted?")
        }
        hub.setDescriptor(library.descriptor)
    }

    // MARK: - Watching trees

    /// Watches directory `top` (absolute, inside `subscription`'s folder) and every
    /// directory beneath it, never through a symlink. Each directory is listed after it is
    /// watched, so one made meanwhile is either listed or reported. What cannot be watched
    /// becomes a `.rescan` and a warning.
    private func watchTree(_ top: String, in subscription: Subscription, at now: ContinuousClock.Instant) {
        do {
            try library.addWatch(top)
        } catch {
            _ = watchFailed(top, error, in: subscription, tree: top, at: now)
            return
        }
        watchTree(below: top, in: subscription, at: now)
    }

    /// Watches every directory beneath `top`, which is watched already.
    private func watchTree(below top: String, in subscription: Subscription, at now: ContinuousClock.Instant) {
        var stack = [top]
        while let directory = stack.popLast() {
            if directory != top {
                do {
                    try library.addWatch(directory)
                } catch {
                    if watchFailed(directory, error, in: subscription, tree: top, at: now) { continue }
                    return
                }
            }
            guard let handle = opendir(directory) else {
                let code = errno
                if code != ENOENT && code != ENOTDIR {
                    warn(subscription, "cannot list \(directory): \(String(cString: strerror(code))); changes inside it may be missed",
                         path: subscription.relative(directory))
                    subscription.coalescer.rescan(subscription.relative(directory), reason: "the directory could not be listed", at: now)
                }
                continue
            }
            defer { closedir(handle) }
            while let entry = readdir(handle) {
                let name = withUnsafeBytes(of: &entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
                if name == [0x2E] || name == [0x2E, 0x2E] { continue }
                var type = entry.pointee.d_type
                if type == UInt8(DT_UNKNOWN) {
                    var info = stat()
                    let path = Array(directory.utf8) + [UInt8(ascii: "/")] + name + [0]
                    guard path.withUnsafeBufferPointer({ lstat(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), &info) }) == 0
                    else { continue }
                    type = (info.st_mode & S_IFMT) == S_IFDIR ? UInt8(DT_DIR) : UInt8(DT_REG)
                }
                guard type == UInt8(DT_DIR) else { continue }
                guard let text = String(validating: name, as: UTF8.self) else {
                    reportBadName(in: subscription.relative(directory), subscription, at: now)
                    continue
                }
                stack.append(directory + "/" + text)
            }
        }
    }

    /// Reports a directory that could not be watched; false when watching should stop
    /// altogether (the watch limit is reached).
    private func watchFailed(
        _ directory: String, _ error: POSIXError, in subscription: Subscription, tree top: String, at now: ContinuousClock.Instant
    ) -> Bool {
        switch error.code {
        case .ENOENT, .ENOTDIR:
            return true  // gone already; its removal is reported by its parent
        case .ENOSPC:
            if !subscription.warnedWatchLimit {  // once: every new directory would say it again
                subscription.warnedWatchLimit = true
                warn(subscription, "cannot watch \(directory) and what is beneath it: \(InotifyLimits.watchLimitAdvice); "
                         + "changes in directories that are not watched are not seen until it is raised and the daemon restarted",
                     path: subscription.relative(top))
            }
            subscription.coalescer.rescan(subscription.relative(top), reason: "the inotify watch limit is reached", at: now)
            return false
        default:
            warn(subscription, "cannot watch \(directory): \(Self.describe(error)); changes inside it are not seen",
                 path: subscription.relative(directory))
            subscription.coalescer.rescan(subscription.relative(directory), reason: "the directory could not be watched (\(Self.describe(error)))", at: now)
            return true
        }
    }

    private func reportBadName(in relativeDirectory: String, _ subscription: Subscription, at now: ContinuousClock.Instant) {
        if subscription.warnedBadNames.insert(PathKey(relativeDirectory)).inserted {
            warn(subscription, "a name in \(relativeDirectory.isEmpty ? "the folder" : relativeDirectory) is not valid UTF-8; "
                     + "it cannot be synced until it is renamed",
                 path: relativeDirectory)
        }
        subscription.coalescer.rescan(relativeDirectory, reason: "a name in this directory is not valid UTF-8", at: now)
    }

    // MARK: - Events

    /// How long events gather after a pass that read some, in microseconds (see `run`).
    static let gatherPause: useconds_t = 1_000

    /// Reads and processes every queued event; returns how many there were.
    @discardableResult
    private func readAndProcess() -> Int {
        let (events, code) = KernelEvent.readAll(from: library.descriptor, into: &buffer)
        reads += 1
        if code != EAGAIN && code != 0 {
            logEveryone(.error, "reading inotify events failed: \(String(cString: strerror(code)))")
        }
        let now = ContinuousClock.now
        var overflowed = false
        for (index, event) in events.enumerated() {
            if event.wd == -1 || event.has(IN_Q_OVERFLOW) {
                overflowed = true
                continue
            }
            if isOwnRename(event, at: now) { continue }
            process(event, next: index + 1 < events.count ? events[index + 1] : nil, at: now)
        }
        if overflowed {
            for subscription in subscriptions {
                warn(subscription, "\(InotifyLimits.queueAdvice); the whole folder is scanned again", path: "")
            }
            rebuild(reason: nil, at: now)
            for subscription in subscriptions { subscription.coalescer.ingest(.overflow, at: now) }
        }
        return events.count
    }

    /// True for either half of a file's rename, in one directory, from a name with its
    /// folder's `ownRenamePrefix` (the daemon's own write moved into place). The first half
    /// waits in `ownRenames` for the second, which may come in a later read and after other
    /// folders' events (the kernel queues the halves one after the other, but another
    /// thread's event can fall between them, and the renaming thread may be descheduled
    /// between the two): until `ownRenameWindow` has passed and a later read has emptied the
    /// queue again.
    private func isOwnRename(_ event: KernelEvent, at now: ContinuousClock.Instant) -> Bool {
        if event.has(IN_MOVED_TO), !event.has(IN_ISDIR), let first = ownRenames.removeValue(forKey: event.cookie) {
            return first.wd == event.wd  // moved elsewhere: reported as usual
        }
        guard event.has(IN_MOVED_FROM), !event.has(IN_ISDIR), event.cookie != 0,
              let directory = library.path(ofWatch: event.wd),
              let own = subscriptions.first(where: { directory.hasBytePrefix($0.prefix) })?.ownRenamePrefix,
              event.name.starts(with: own)
        else { return false }
        ownRenames[event.cookie] = (event.wd, reads, now + ownRenameWindow)
        return true
    }

    private func process(_ event: KernelEvent, next: KernelEvent?, at now: ContinuousClock.Instant) {
        if event.has(IN_IGNORED) {
            library.watchWasDropped(event.wd)
            return
        }
        guard let directory = library.path(ofWatch: event.wd), !directory.hasBytePrefix(InotifyLibrary.internalMarker),
              let subscription = subscriptions.first(where: { directory.hasBytePrefix($0.prefix) })
        else { return }
        let relativeDirectory = subscription.relative(String(directory.dropLast()))
        var flags = RawFileEvent.Flags(mask: event.mask)
        if event.name.isEmpty {
            // An event on a watched directory itself; its parent reports the same by name,
            // except for the root, which has no watched parent.
            if relativeDirectory.isEmpty, event.has(IN_DELETE_SELF) || event.has(IN_MOVE_SELF) || event.has(IN_UNMOUNT) {
                warn(subscription, "the watched folder \(subscription.root) was deleted, moved or unmounted", path: "")
                subscription.coalescer.ingest(RawFileEvent("", flags), at: now)
            } else if event.has(IN_UNMOUNT) {
                subscription.coalescer.ingest(RawFileEvent(relativeDirectory, flags), at: now)
            }
            return
        }
        guard let name = String(validating: event.name, as: UTF8.self) else {
            reportBadName(in: relativeDirectory, subscription, at: now)
            return
        }
        if !event.has(IN_ISDIR), let ignored = subscription.ignoredFilePrefix, name.hasBytePrefix(ignored) { return }
        if !event.has(IN_ISDIR), let own = subscription.ownRenamePrefix, event.name.starts(with: own) { return }
        let path = relativeDirectory.isEmpty ? name : relativeDirectory + "/" + name
        let absolute = directory + name
        if event.has(IN_ISDIR) {
            if event.has(IN_CREATE) {
                watchTree(absolute, in: subscription, at: now)
            } else if event.has(IN_MOVED_FROM) {
                directoryMovedAway(absolute + "/", cookie: event.cookie, next: next, at: now)
            } else if event.has(IN_MOVED_TO) {
                directoryArrived(absolute, path: path, cookie: event.cookie, in: subscription, at: now)
            }
        } else if event.has(IN_CREATE) {
            var info = stat()
            if lstat(absolute, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG { flags.insert(.notRegularFile) }
        }
        subscription.coalescer.ingest(RawFileEvent(path, flags, cookie: event.cookie), at: now)
    }

    /// The first half of a directory rename: `oldPath` (table path, trailing slash) left.
    /// When the second half is the very next event (the usual case), the table is renamed
    /// at once; otherwise the entries wait under an internal name for `moveWindow`.
    private func directoryMovedAway(_ oldPath: String, cookie: UInt32, next: KernelEvent?, at now: ContinuousClock.Instant) {
        let live = library.liveWatches(under: oldPath)
        let entries = live.map(\.path)
        let deadline = now + moveWindow
        if entries.count > InotifyLibrary.renameLimit {
            for (wd, _) in live { library.removeWatch(wd) }
            directoryMoves[cookie] = .dropped(deadline: deadline)
        } else if let next, next.cookie == cookie, next.has(IN_MOVED_TO), next.has(IN_ISDIR),
                  let newDirectory = library.path(ofWatch: next.wd), !newDirectory.hasBytePrefix(InotifyLibrary.internalMarker),
                  subscriptions.contains(where: { newDirectory.hasBytePrefix($0.prefix) }),
                  let newName = String(validating: next.name, as: UTF8.self) {
            library.rename(entries, from: oldPath, to: newDirectory + newName + "/")
            directoryMoves[cookie] = .renamed
        } else {
            let parking = library.internalName("moving")
            library.rename(entries, from: oldPath, to: parking)
            directoryMoves[cookie] = .parked(parking, deadline: deadline)
        }
    }

    /// The second half of a directory rename, or a directory moved in from outside.
    private func directoryArrived(_ absolute: String, path: String, cookie: UInt32, in subscription: Subscription, at now: ContinuousClock.Instant) {
        switch directoryMoves.removeValue(forKey: cookie) {
        case .renamed:
            break
        case .parked(let parking, _):
            library.rename(library.liveWatches(under: parking).map(\.path), from: parking, to: absolute + "/")
        case .dropped:
            watchTree(absolute, in: subscription, at: now)
            subscription.coalescer.rescan(path, reason: "a large directory was renamed and is watched afresh", at: now)
        case nil:
            watchTree(absolute, in: subscription, at: now)
        }
    }

    /// Directory renames whose second half never came: the directory left every watched
    /// folder, so its watches go. Own renames whose second half never came are forgotten.
    private func expirePendingMoves(at now: ContinuousClock.Instant) {
        if !ownRenames.isEmpty { ownRenames = ownRenames.filter { $0.value.deadline > now || $0.value.read == reads } }
        for (cookie, move) in directoryMoves {
            guard let deadline = move.deadline, deadline <= now else { continue }
            directoryMoves.removeValue(forKey: cookie)
            if case .parked(let parking, _) = move {
                for (wd, _) in library.liveWatches(under: parking) { library.removeWatch(wd) }
            }
        }
    }

    /// Starts the library afresh and watches every folder again. Events in between are
    /// lost: a `reason` asks each folder for a full rescan (an overflow asks for it itself).
    private func rebuild(reason: String?, at now: ContinuousClock.Instant) {
        directoryMoves = [:]
        ownRenames = [:]
        hub.setDescriptor(-1)
        library.shutdown()
        do throws(POSIXError) {
            try library.initialize()
        } catch {
            for subscription in subscriptions {
                warn(subscription, "inotify could not restart (\(Self.describe(error))); \(InotifyLimits.instanceAdvice); "
                         + "the folder is no longer watched", path: "")
                subscription.events.finish()
                hub.forget(subscription.id)
            }
            subscriptions = []
            return
        }
        for subscription in subscriptions {
            do throws(WatcherError) {
                try watchRoot(subscription)
            } catch {
                warn(subscription, "\(error.message); the folder is no longer watched", path: "")
                subscription.events.finish()
                hub.forget(subscription.id)
                subscriptions.removeAll { $0 === subscription }
                continue
            }
            watchTree(below: subscription.root, in: subscription, at: now)
            if let reason { subscription.coalescer.rescan("", reason: reason, at: now) }
        }
    }

    // MARK: - Reporting

    private func warn(_ subscription: Subscription, _ message: String, path: String) {
        subscription.logger.warning("\(message)", metadata: ["path": "\(path)", "folder": "\(subscription.root)"])
        subscription.status.warn(message)
    }

    private func logEveryone(_ level: Logger.Level, _ message: String) {
        for subscription in subscriptions {
            subscription.logger.log(level: level, "\(message)", metadata: ["folder": "\(subscription.root)"])
        }
    }

    private static func describe(_ error: POSIXError) -> String {
        String(cString: strerror(error.code.rawValue))
    }
}

extension RawFileEvent.Flags {
    /// The flags of an inotify event mask (`IN_*` bits).
    init(mask: UInt32) {
        self = []
        for (bit, flag) in Self.inotifyBits where mask & UInt32(bitPattern: bit) != 0 { insert(flag) }
    }

    private static let inotifyBits: [(Int32, RawFileEvent.Flags)] = [
        (Int32(IN_CREATE), .created), (Int32(IN_MODIFY), .modified), (Int32(IN_CLOSE_WRITE), .closeWrite),
        (Int32(IN_ATTRIB), .attrib), (Int32(IN_DELETE), .deleted), (Int32(IN_DELETE_SELF), .deletedSelf),
        (Int32(IN_MOVED_FROM), .movedFrom), (Int32(IN_MOVED_TO), .movedTo), (Int32(IN_MOVE_SELF), .movedSelf),
        (Int32(IN_ISDIR), .isDirectory), (Int32(IN_Q_OVERFLOW), .overflow), (Int32(IN_IGNORED), .ignored),
        (Int32(IN_UNMOUNT), .unmounted),
    ]
}
