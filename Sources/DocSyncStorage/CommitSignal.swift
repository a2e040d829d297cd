import DocSyncCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Cross-process "something was committed" signalling through one file, without polling.
///
/// Every commit rewrites one byte of the file; every process interested watches it with
/// inotify (`IN_CLOSE_WRITE`), so a commit in any process that shares the backend directory
/// wakes all the others within milliseconds. Uses the raw inotify API, not libinotifytools,
/// whose single global instance belongs to the folder watcher.
struct CommitSignal: Sendable {
    let path: String

    /// Creates the file if needed.
    init(path: String) throws(SyncError) {
        self.path = path
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SyncError.posix("create \(path)", errno) }
        close(fd)
    }

    /// Tells every watcher that a commit happened. Failing to signal is not an error for
    /// the commit; it is reported to the caller to log.
    @discardableResult
    func signal() -> Bool {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        var byte: UInt8 = 1
        let written = pwrite(fd, &byte, 1, 0)
        close(fd)
        return written == 1
    }

    /// Calls `onSignal` (on a private queue) after each signal, from this or any process,
    /// until the returned watcher is cancelled or released.
    func watch(onSignal: @escaping @Sendable () -> Void) throws(SyncError) -> CommitWatcher {
        try CommitWatcher(path: path, onSignal: onSignal)
    }
}

/// An inotify watch on a commit-signal file, delivering on a dispatch queue.
/// (`@unchecked`: a dispatch source is safe to cancel from any thread.)
final class CommitWatcher: @unchecked Sendable {
    private let source: any DispatchSourceRead

    fileprivate init(path: String, onSignal: @escaping @Sendable () -> Void) throws(SyncError) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw SyncError.posix("inotify_init1 for \(path)", errno) }
        guard inotify_add_watch(fd, path, UInt32(IN_CLOSE_WRITE)) >= 0 else {
            let code = errno
            close(fd)
            throw SyncError.posix("inotify_add_watch \(path)", code)
        }
        let queue = DispatchQueue(label: "docsync.commit-signal")
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler {
            // Drain every queued event; one callback covers them all.
            var buffer = [UInt8](repeating: 0, count: 4096)
            while read(fd, &buffer, buffer.count) > 0 {}
            onSignal()
        }
        source.setCancelHandler { close(fd) }
        source.resume()
    }

    func cancel() { source.cancel() }

    deinit { source.cancel() }
}
