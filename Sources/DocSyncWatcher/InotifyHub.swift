import CInotifyTools
import Foundation
import Logging
import Synchronization

/// The one owner of libinotifytools in this process: every `InotifyWatcher` subscribes its
/// folder here, and one dedicated thread (`docsync-inotify`) does all calls into the
/// library, reads the kernel's events, coalesces them per folder and yields them.
///
/// A caller may rely on:
/// - `subscribe` returns once the whole folder is watched (or throws why not); events are
///   put in the folder's `EventBuffer` in the order its `EventCoalescer` gives them.
/// - After `unsubscribe`, the folder's watches are removed and its buffer finished.
/// - The thread starts with the first subscription and exits, releasing the library's
///   inotify instance, soon after the last one ends.
/// - `isQuiet(_:)` is safe from any thread.
final class InotifyHub: Sendable {
    static let shared = InotifyHub()

    enum Command: Sendable {
        case subscribe(SubscribeRequest)
        case unsubscribe(UInt64, Reply<Void, Never>)
        /// Runs on the thread between passes (tests hold the thread with it).
        case call(@Sendable () -> Void)
    }

    struct SubscribeRequest: Sendable {
        let id: UInt64
        /// Absolute, symlinks resolved, no trailing slash.
        let root: String
        let quietPeriod: Duration
        let ignoredFilePrefix: String?
        let ownRenamePrefix: String?
        let events: EventBuffer
        let logger: Logger
        let status: WatcherStatus
        let reply: Reply<Void, WatcherError>
    }

    private struct State {
        var commands: [Command] = []
        var threadRunning = false
        /// The thread has taken events from the kernel that are not yet drained.
        var busy = false
        /// The library's inotify descriptor while it is open, else -1.
        var descriptor: Int32 = -1
        /// Per subscription: whether its coalescer holds anything.
        var pending: [UInt64: Bool] = [:]
        var nextID: UInt64 = 1
    }

    private let state = Mutex(State())
    /// An eventfd other threads write to, to wake the thread's poll(2). Never closed.
    let wakeDescriptor: Int32

    init() {
        wakeDescriptor = docsync_make_wake_fd()
    }

    // MARK: - Used by watchers (any thread)

    func newID() -> UInt64 {
        state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    /// Watches `request.root` recursively; blocks until it is watched or has failed.
    func subscribe(_ request: SubscribeRequest) throws(WatcherError) {
        enqueue(.subscribe(request))
        try request.reply.wait().get()
    }

    /// Stops watching the subscription's folder and finishes its stream; does nothing for a
    /// subscription that has ended. With `wait`, returns once that is done (unless called
    /// on the thread itself, which cannot wait for itself).
    func unsubscribe(_ id: UInt64, wait: Bool = false) {
        guard state.withLock({ $0.pending[id] != nil }) else { return }
        let done = Reply<Void, Never>()
        enqueue(.unsubscribe(id, done))
        if wait && !Self.isOwnerThread { _ = done.wait() }
    }

    /// Whether the caller runs on the owner thread.
    static var isOwnerThread: Bool { Thread.current.threadDictionary[ownerThreadKey] != nil }
    static let ownerThreadKey = "docsync.inotify.owner"

    /// True when subscription `id` has nothing pending: its coalescer is empty, the thread
    /// holds no undrained events, and the kernel queue is empty. True for an ended one.
    func isQuiet(_ id: UInt64) -> Bool {
        state.withLock { state in
            guard let pending = state.pending[id] else { return true }
            if pending || state.busy { return false }
            return state.descriptor < 0 || docsync_inotify_pending_bytes(state.descriptor) == 0
        }
    }

    /// Whether the owner thread is alive (for tests).
    var isRunning: Bool { state.withLock { $0.threadRunning } }

    /// How many folders are watched (for tests).
    var subscriptionCount: Int { state.withLock { $0.pending.count } }

    /// Runs `body` on the owner thread between two passes; while it runs, no event is read.
    /// For tests that need the kernel queue to fill up.
    func runOnThread(_ body: @escaping @Sendable () -> Void) {
        enqueue(.call(body))
    }

    private func enqueue(_ command: Command) {
        let startThread = state.withLock { state in
            state.commands.append(command)
            if state.threadRunning { return false }
            state.threadRunning = true
            return true
        }
        if startThread {
            let thread = Thread { [self] in
                Thread.current.threadDictionary[Self.ownerThreadKey] = true
                HubLoop(hub: self).run()
            }
            thread.name = "docsync-inotify"
            thread.start()
        } else {
            wake()
        }
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, MemoryLayout<UInt64>.size)
    }

    // MARK: - Used by the thread

    func takeCommands() -> [Command] {
        state.withLock { state in
            defer { state.commands = [] }
            return state.commands
        }
    }

    /// Marks the thread stopped unless a command came in meanwhile; true when it may exit.
    func finishIfIdle() -> Bool {
        state.withLock { state in
            guard state.commands.isEmpty else { return false }
            state.threadRunning = false
            state.descriptor = -1
            state.busy = false
            return true
        }
    }

    func setDescriptor(_ fd: Int32) { state.withLock { $0.descriptor = fd } }

    func setBusy() { state.withLock { $0.busy = true } }

    /// Ends a batch: nothing undrained, and each subscription's coalescer state.
    func finishBatch(pending: [UInt64: Bool]) {
        state.withLock { state in
            state.busy = false
            for (id, isPending) in pending { state.pending[id] = isPending }
        }
    }

    func forget(_ id: UInt64) { _ = state.withLock { $0.pending.removeValue(forKey: id) } }
}

/// A one-shot answer from the hub's thread to a waiting caller.
final class Reply<Success: Sendable, Failure: Error>: Sendable {
    private let result = Mutex<Result<Success, Failure>?>(nil)
    private let semaphore = DispatchSemaphore(value: 0)

    func send(_ value: Result<Success, Failure>) {
        result.withLock { $0 = value }
        semaphore.signal()
    }

    func wait() -> Result<Success, Failure> {
        semaphore.wait()
        return result.withLock { $0! }
    }
}

/// What a watcher shares with the hub's thread: the warnings a person should see.
final class WatcherStatus: Sendable {
    private let recent = Mutex<[String]>([])
    static let kept = 50

    var warnings: [String] { recent.withLock { $0 } }

    func warn(_ message: String) {
        recent.withLock { list in
            list.append(message)
            if list.count > Self.kept { list.removeFirst(list.count - Self.kept) }
        }
    }
}
