import DocSyncCore

/// What the watcher tells the engine about a folder, after coalescing.
///
/// Events are hints, never the truth: the engine re-examines the named paths on disk. A
/// path is relative to the watched root, with `/` separators, never empty except in
/// `.rescan("")` (the whole folder). Names that are not valid UTF-8 are never put in a
/// path: the watcher reports their directory with `.rescan` instead, and the scanner
/// reports the name itself as a per-file problem. Two events are equal (and hash alike)
/// only when their paths are the same bytes: names that differ only in Unicode
/// normalization are two paths (SPEC §4a).
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

    public static func == (lhs: WatchEvent, rhs: WatchEvent) -> Bool {
        switch (lhs, rhs) {
        case (.changed(let a), .changed(let b)), (.directoryAppeared(let a), .directoryAppeared(let b)), (.removed(let a), .removed(let b)):
            a.bytesEqual(b)
        case (.moved(let fromA, let toA), .moved(let fromB, let toB)): fromA.bytesEqual(fromB) && toA.bytesEqual(toB)
        case (.rescan(let a, let reasonA), .rescan(let b, let reasonB)): a.bytesEqual(b) && reasonA == reasonB
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .changed(let path): hasher.combine(0); path.hashBytes(into: &hasher)
        case .directoryAppeared(let path): hasher.combine(1); path.hashBytes(into: &hasher)
        case .removed(let path): hasher.combine(2); path.hashBytes(into: &hasher)
        case .moved(let from, let to): hasher.combine(3); from.hashBytes(into: &hasher); to.hashBytes(into: &hasher)
        case .rescan(let path, let reason): hasher.combine(4); path.hashBytes(into: &hasher); hasher.combine(reason)
        }
    }
}
