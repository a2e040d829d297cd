import CInotifyTools
import DocSyncCore
import Foundation

/// libinotifytools' one global inotify instance and its wd → path table, wrapped so the
/// table stays true. Not thread-safe, like the library: only `InotifyHub`'s thread uses it.
///
/// A caller may rely on: every directory watched is in the library's table as its absolute
/// path with a trailing slash; `path(ofWatch:)` gives that path for any live watch; after
/// `renameDirectory`, watches beneath the old path carry the new one. Paths the library
/// holds that no longer name a watched directory (a watch the kernel dropped, a directory
/// moved out) start with `internalMarker`, never with `/`.
///
/// Works around three things the library gets wrong (checked against 3.22.6):
/// - `inotifytools_replace_filename` renames entries while walking its tree and misses some
///   when it renames several; so entries are renamed one at a time, deepest first, so each
///   walk changes exactly one entry.
/// - It never forgets a watch the kernel dropped (`IN_IGNORED`), and `remove_watch` on such
///   a watch fails and prints to stderr; a later directory at the same path then does not
///   enter the path index. So a stale entry (dropped, or of a directory deleted or
///   replaced whose `IN_IGNORED` is still to come) is renamed out of the way (`claim`)
///   before its path is reused, and `needsRebuild` says when such entries have piled up.
/// - It exposes no accessor for its inotify descriptor; `discoverDescriptor` finds it in
///   `/proc/self/fd` (the inotify descriptor whose `fdinfo` lists the root's watch).
final class InotifyLibrary {
    /// The events watched on every directory: content, metadata, names, and the directory
    /// itself; never through a symlink, only directories, not for unlinked-but-open files.
    static let watchMask: Int32 = Int32(IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE | IN_DELETE_SELF)
        | Int32(IN_MOVED_FROM | IN_MOVED_TO | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK)

    /// Starts every table path that is not a watched directory's real path.
    static let internalMarker = "\u{1}"
    /// More dead entries than this and the library should be started afresh.
    static let deadEntryLimit = 50_000
    /// Renaming more directories than this at once costs more than watching them afresh.
    static let renameLimit = 64

    private(set) var isInitialized = false
    /// The library's inotify descriptor, once found; -1 before.
    private(set) var descriptor: Int32 = -1
    private var descriptorsBefore: Set<Int32> = []
    /// Watches the kernel dropped whose entries still sit in the table.
    private var deadWatches: Set<Int32> = []
    /// Entries renamed out of the way; the library keeps them until `shutdown`.
    private var buriedEntries = 0
    private var nextInternalName = 0

    var needsRebuild: Bool { deadWatches.count + buriedEntries > Self.deadEntryLimit }

    /// Starts the library. Throws the errno of `inotify_init` (EMFILE: too many instances).
    func initialize() throws(POSIXError) {
        guard !isInitialized else { return }
        descriptorsBefore = Self.inotifyDescriptors()
        guard inotifytools_initialize() != 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: inotifytools_error()) ?? .EIO)
        }
        isInitialized = true
    }

    /// Releases the library's inotify instance and table; every watch is gone.
    func shutdown() {
        guard isInitialized else { return }
        inotifytools_cleanup()
        isInitialized = false
        descriptor = -1
        deadWatches = []
        buriedEntries = 0
    }

    /// Finds the library's descriptor, given a watch it holds: `wd` on the directory with
    /// inode `inode`. Makes it non-blocking. False if no descriptor matches.
    func discoverDescriptor(wd: Int32, inode: UInt64) -> Bool {
        if descriptor >= 0 { return true }
        let line = "inotify wd:\(String(wd, radix: 16)) ino:\(String(inode, radix: 16)) "
        // Other inotify instances come and go meanwhile (each embedded backend has one), and
        // one closed since `initialize` may have left the library its number: the watch
        // itself identifies the library's descriptor; only when another instance watches
        // the same directory under the same number are those open before `initialize` ruled out.
        let watching = Self.inotifyDescriptors().filter { fd in
            Self.fdinfo(fd).split(separator: "\n").contains { $0.hasPrefix(line) }
        }
        let matches = watching.count > 1 ? watching.subtracting(descriptorsBefore) : watching
        guard matches.count == 1, let fd = matches.first, docsync_set_nonblocking(fd) == 0 else { return false }
        descriptor = fd
        return true
    }

    // MARK: - Watches


    /// The path the table holds for `wd`: absolute with a trailing slash, or starting with
    /// `internalMarker`; nil for a watch the table does not know.
    func path(ofWatch wd: Int32) -> String? {
        guard let name = inotifytools_filename_from_wd(wd), name.pointee != 0 else { return nil }
        return String(cString: name)
    }

    /// Watches directory `path` (absolute, no trailing slash) unless it is watched already.
    /// Throws the errno of `inotify_add_watch` (ENOSPC: watch limit; EACCES; ENOENT).
    ///
    /// An entry for `path` in the table may be this directory's (watched already) or a
    /// predecessor's: one deleted or replaced whose `IN_IGNORED` has not come yet. The
    /// kernel tells them apart: it gives the existing watch of this very directory back.
    @discardableResult
    func addWatch(_ path: String) throws(POSIXError) -> Int32 {
        let existing = inotifytools_wd_from_filename(path + "/")
        if existing > 0 {
            if descriptor >= 0 && !deadWatches.contains(existing) {
                let wd = inotify_add_watch(descriptor, path, UInt32(bitPattern: Self.watchMask))
                guard wd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                if wd == existing { return wd }
            }
            claim(path + "/")
        }
        guard inotifytools_watch_file(path, Self.watchMask) != 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: inotifytools_error()) ?? .EIO)
        }
        return inotifytools_wd_from_filename(path + "/")
    }

    /// Stops watching `wd` (a live watch) and forgets it.
    func removeWatch(_ wd: Int32) {
        _ = inotifytools_remove_watch_by_wd(wd)
    }

    /// The kernel dropped `wd` (`IN_IGNORED`): its entry is dead from now on.
    /// An entry already renamed out of the way stays where it is.
    func watchWasDropped(_ wd: Int32) {
        guard let path = path(ofWatch: wd), !path.hasBytePrefix(Self.internalMarker) else { return }
        deadWatches.insert(wd)
    }

    // MARK: - Renames

    /// The watched directories at and beneath `prefix` (a table path with trailing slash),
    /// from the kernel's list of live watches. Costs a read of `/proc/self/fdinfo`.
    func liveWatches(under prefix: String) -> [(wd: Int32, path: String)] {
        Self.liveWatchDescriptors(of: descriptor).compactMap { wd in
            guard let path = path(ofWatch: wd), path.hasBytePrefix(prefix) else { return nil }
            return (wd, path)
        }
    }

    /// Renames the table entries `entries` (paths beginning with `oldPrefix`) to begin with
    /// `newPrefix` instead. Both prefixes end with a slash.
    func rename(_ entries: [String], from oldPrefix: String, to newPrefix: String) {
        // Deepest first: renaming an entry by its own path then touches no other entry.
        for entry in entries.sorted(by: { $0.utf8.count > $1.utf8.count }) {
            let target = newPrefix + String(decoding: entry.utf8.dropFirst(oldPrefix.utf8.count), as: UTF8.self)
            claim(target)
            inotifytools_replace_filename(entry, target)
        }
    }

    /// A table path no real directory has, for entries moved out of the way.
    func internalName(_ label: String) -> String {
        nextInternalName += 1
        return "\(Self.internalMarker)\(label)/\(nextInternalName)/"
    }

    /// Makes table path `path` free for a new entry: a dead or replaced entry there is
    /// renamed to an internal name.
    private func claim(_ path: String) {
        let wd = inotifytools_wd_from_filename(path)
        guard wd > 0 else { return }
        inotifytools_replace_filename(path, internalName("gone"))
        deadWatches.remove(wd)
        buriedEntries += 1
    }

    // MARK: - /proc

    /// The inotify instances open in this process.
    static func inotifyDescriptors() -> Set<Int32> {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return [] }
        var result = Set<Int32>()
        var buffer = [CChar](repeating: 0, count: 64)
        for name in names {
            guard let fd = Int32(name) else { continue }
            let count = readlink("/proc/self/fd/\(name)", &buffer, buffer.count - 1)
            guard count > 0 else { continue }
            let target = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if target == "anon_inode:inotify" { result.insert(fd) }
        }
        return result
    }

    static func fdinfo(_ fd: Int32) -> String {
        (try? String(contentsOfFile: "/proc/self/fdinfo/\(fd)", encoding: .utf8)) ?? ""
    }

    /// The watch descriptors the kernel holds for inotify instance `fd`.
    static func liveWatchDescriptors(of fd: Int32) -> [Int32] {
        guard fd >= 0 else { return [] }
        return fdinfo(fd).split(separator: "\n").compactMap { line in
            guard line.hasPrefix("inotify wd:") else { return nil }
            let hex = line.dropFirst("inotify wd:".count).prefix { $0 != " " }
            return Int32(hex, radix: 16)
        }
    }
}
