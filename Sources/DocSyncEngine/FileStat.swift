import DocSyncCore
import Foundation

/// What `lstat` says about one item, in the terms the index compares.
///
/// Two stats of the same unchanged file are equal in `kind`, `size`, `modified`, `inode`
/// and `mode`; the engine treats any difference as "look again" (then compares digests).
public struct FileStat: Hashable, Sendable {
    public enum Kind: String, Sendable, Hashable, Codable {
        case file, directory, symlink
        /// FIFOs, sockets, device files: never synced, reported.
        case special
    }

    public var kind: Kind
    public var size: Int64
    public var modified: Timestamp
    public var inode: UInt64
    public var device: UInt64
    /// Permission bits only (`0o7777`).
    public var mode: UInt32

    public init(kind: Kind, size: Int64, modified: Timestamp, inode: UInt64, device: UInt64, mode: UInt32) {
        self.kind = kind
        self.size = size
        self.modified = modified
        self.inode = inode
        self.device = device
        self.mode = mode
    }

    /// The facts of a `stat` buffer (as `PosixFileSystem` reads them).
    init(_ st: stat) {
        let type = st.st_mode & S_IFMT
        switch type {
        case S_IFREG: kind = .file
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symlink
        default: kind = .special
        }
        size = Int64(st.st_size)
        modified = Timestamp(seconds: Int64(st.st_mtim.tv_sec), nanoseconds: Int64(st.st_mtim.tv_nsec))
        inode = UInt64(st.st_ino)
        device = UInt64(st.st_dev)
        mode = UInt32(st.st_mode) & 0o7777
    }

    /// Same content as far as metadata can tell: kind, size, mtime and inode agree.
    public func sameContent(as other: FileStat) -> Bool {
        kind == other.kind && size == other.size && modified == other.modified && inode == other.inode
    }
}
