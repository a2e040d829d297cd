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

    private init(fd: Int32) { self.fd = fd }

    deinit { close(fd) }
}
