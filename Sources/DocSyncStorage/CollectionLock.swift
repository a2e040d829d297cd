import DocSyncCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The one-collector-at-a-time lock of a store: `flock` on `collect.lock` in its directory,
/// which every process sharing the directory (daemons on one `file://` store, docsync-server
/// and its `gc` command) takes before collecting. Released when the value is released or
/// the process ends, however it ends.
final class CollectionLock: Sendable {
    private let fd: Int32

    /// Takes the lock of the store in `directory`, or returns `nil` at once when another
    /// collector holds it. Throws when the lock file cannot be opened.
    static func take(in directory: URL) throws(SyncError) -> CollectionLock? {
        let path = directory.appendingPathComponent("collect.lock").path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SyncError.posix("open \(path)", errno) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(fd)
            if code == EWOULDBLOCK { return nil }
            throw SyncError.posix("lock \(path)", code)
        }
        return CollectionLock(fd: fd)
    }

    /// Takes the lock of the store in `directory`, waiting while another collector holds it
    /// (trying again every 50 ms, blocking no thread meanwhile), for at most `timeout`:
    /// `zoneBusy` then (retry shortly).
    static func wait(in directory: URL, timeout: Duration) async throws(SyncError) -> CollectionLock {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let lock = try take(in: directory) { return lock }
            guard ContinuousClock.now < deadline else {
                throw SyncError(.zoneBusy, "a garbage collection of the store at \(directory.path) is still running after \(timeout); retry shortly")
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    private init(fd: Int32) { self.fd = fd }

    deinit { close(fd) }
}
