/// Why a folder could not be watched, said so that a person knows what to do.
///
/// A caller may rely on: `code` tells the cases apart for code; `path` is the folder
/// concerned (absolute); `message` is one or two sentences for a person, naming the folder
/// and the fix (a command, a setting) where there is one. Thrown only by
/// `InotifyWatcher.start()`: once a folder is watched, later trouble (a subdirectory that
/// cannot be watched, a queue overflow) is a `.rescan` event and a warning, not an error.
public struct WatcherError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// Nothing is at the folder's path.
        case folderNotFound
        /// The path is not a directory.
        case notADirectory
        /// The folder cannot be read or watched (permissions).
        case permissionDenied
        /// The kernel refused an inotify instance (`fs.inotify.max_user_instances`) or
        /// inotify is unavailable.
        case inotifyUnavailable
        /// The per-user watch limit (`fs.inotify.max_user_watches`) is reached.
        case watchLimitReached
        /// The folder is inside, or contains, a folder this process already watches.
        case overlapsWatchedFolder
        /// `start()` was called twice on one watcher.
        case alreadyStarted
        /// Anything else the kernel said; `message` has its words.
        case failed
    }

    public var code: Code
    public var path: String
    public var message: String

    public init(_ code: Code, path: String, _ message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    public var description: String { message }
}
