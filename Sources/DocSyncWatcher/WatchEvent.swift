/// What the watcher tells the engine about a folder, after coalescing.
///
/// Events are hints, never the truth: the engine re-examines the named paths on disk. A
/// path is relative to the watched root, with `/` separators, never empty except in
/// `.rescan("")` (the whole folder). Names that are not valid UTF-8 are never put in a
/// path: the watcher reports their directory with `.rescan` instead, and the scanner
/// reports the name itself as a per-file problem.
public enum WatchEvent: Sendable, Hashable {
    /// A file, symlink or directory at `path` was created or changed and has settled
    /// (closed after writing, moved into place, or quiet for the quiet period).
    case changed(String)
    /// A directory appeared at `path` (created, or moved in from outside the folder). It is
    /// watched already; its whole subtree must be scanned, since files made before the
    /// watch was added produced no events.
    case directoryAppeared(String)
    /// The item at `path` is gone (deleted, or moved out of the folder).
    case removed(String)
    /// The item at `from` was renamed to `to` inside the folder (paired by cookie). For a
    /// directory, everything beneath moved with it.
    case moved(from: String, to: String)
    /// Events under `path` may have been lost (queue overflow, a watch that could not be
    /// added, an unreadable name): scan that subtree again. `reason` is for the warning a
    /// person sees.
    case rescan(String, reason: String)
}
