/// What one inotify event says, before coalescing, with its path already made relative to
/// the watched root.
///
/// A caller may rely on: `path` is relative to the root with `/` separators, no leading or
/// trailing slash, and valid UTF-8 (the watcher never builds a `RawFileEvent` from a name
/// that is not); it is `""` only for the root itself and for `.overflow`. `cookie` is the
/// kernel's rename cookie: nonzero and equal on the `.movedFrom` and `.movedTo` halves of
/// one rename, and meaningless for other events. A pure value: building one does no I/O.
public struct RawFileEvent: Sendable, Hashable, CustomStringConvertible {
    /// What happened, one flag per inotify bit the coalescer cares about.
    public struct Flags: OptionSet, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        /// The item was created in its directory (`IN_CREATE`).
        public static let created = Flags(rawValue: 1 << 0)
        /// The file's content was written (`IN_MODIFY`).
        public static let modified = Flags(rawValue: 1 << 1)
        /// A writer closed the file (`IN_CLOSE_WRITE`): its content has settled.
        public static let closeWrite = Flags(rawValue: 1 << 2)
        /// Metadata changed: mode, owner, times, links (`IN_ATTRIB`).
        public static let attrib = Flags(rawValue: 1 << 3)
        /// The item was deleted from its directory (`IN_DELETE`).
        public static let deleted = Flags(rawValue: 1 << 4)
        /// The watched directory itself was deleted (`IN_DELETE_SELF`).
        public static let deletedSelf = Flags(rawValue: 1 << 5)
        /// The item was renamed away from `path` (`IN_MOVED_FROM`).
        public static let movedFrom = Flags(rawValue: 1 << 6)
        /// An item was renamed to `path` (`IN_MOVED_TO`).
        public static let movedTo = Flags(rawValue: 1 << 7)
        /// The watched directory itself was renamed (`IN_MOVE_SELF`).
        public static let movedSelf = Flags(rawValue: 1 << 8)
        /// The item is a directory (`IN_ISDIR`).
        public static let isDirectory = Flags(rawValue: 1 << 9)
        /// The item is neither a regular file nor a directory (a symlink, FIFO, socket or
        /// device, found by `lstat` when it was created): it is complete as soon as it
        /// exists, since nothing writes to it and it is never closed after writing.
        public static let notRegularFile = Flags(rawValue: 1 << 10)
        /// The kernel's event queue overflowed (`IN_Q_OVERFLOW`): events were lost.
        public static let overflow = Flags(rawValue: 1 << 11)
        /// The kernel removed the watch (`IN_IGNORED`); nothing changed on disk.
        public static let ignored = Flags(rawValue: 1 << 12)
        /// The file system holding the item was unmounted (`IN_UNMOUNT`).
        public static let unmounted = Flags(rawValue: 1 << 13)

        private static let names: [(Flags, String)] = [
            (.created, "created"), (.modified, "modified"), (.closeWrite, "closeWrite"), (.attrib, "attrib"),
            (.deleted, "deleted"), (.deletedSelf, "deletedSelf"), (.movedFrom, "movedFrom"), (.movedTo, "movedTo"),
            (.movedSelf, "movedSelf"), (.isDirectory, "isDirectory"), (.notRegularFile, "notRegularFile"),
            (.overflow, "overflow"), (.ignored, "ignored"), (.unmounted, "unmounted"),
        ]

        public var description: String {
            "[" + Self.names.filter { contains($0.0) }.map(\.1).joined(separator: ",") + "]"
        }
    }

    public var path: String
    public var flags: Flags
    public var cookie: UInt32

    public init(_ path: String, _ flags: Flags, cookie: UInt32 = 0) {
        self.path = path
        self.flags = flags
        self.cookie = cookie
    }

    /// The event that stands for "the kernel queue overflowed".
    public static let overflow = RawFileEvent("", .overflow)

    public var description: String {
        cookie == 0 ? "\(flags) \"\(path)\"" : "\(flags) \"\(path)\" cookie=\(cookie)"
    }
}
