import CFuse3
import DocSyncCore
import DocSyncEngine
import DocSyncWatcher
import Foundation
import Glibc
import Logging
import Synchronization

/// An on-demand folder as a FUSE file system (SPEC §14): the folder's content directory
/// (`backing`, where the engine keeps what is local and a placeholder `.NAME.docsync` for
/// each document that is not) shown at the mount point as the folder itself.
///
/// What a program at the mount point may rely on:
/// - every item at its real name, size, times and mode; listing and `stat` read no content;
/// - reading a document that is not local fetches only the chunks the read covers plus at
///   most `PartialContent.readAhead` bytes after them, verified (`EIO` when that fails);
/// - opening such a document for writing, or changing its size, mode or times, makes it
///   local first; everything else is done on the content directory as on a local disk
///   (`link` fails with `EPERM`; a read-only share fails every change with `EROFS`), and
///   each change is handed to the engine (`OnDemandSource.noteLocal`) once a burst of them
///   is over (`ChangeNotes`);
/// - the engine's placeholders and temporary files are never shown;
/// - content that does not come within `fetchTimeout` fails with `EIO`;
/// - `user.docsync.status` and `user.docsync.pinned` say what is local.
public final class OnDemandFileSystem: Sendable {
    /// The content directory, absolute, without a trailing slash.
    public let backing: String
    let source: any OnDemandSource
    let logger: Logger
    let nodes = NodeTable()
    let partial: PartialContent
    /// How long the kernel may keep names and attributes before asking again. Changes the
    /// engine makes are told to the kernel at once (`KernelCacheInvalidation`); this bounds
    /// how long one could show stale if that watch lost track.
    let cacheSeconds: Double = 60
    /// The libfuse session while mounted, for telling the kernel what changed.
    let session = Mutex<UnsafeSendablePointer?>(nil)
    let handles = HandleTable()
    let notes: ChangeNotes
    /// When each path was last opened through the mount (monotonic seconds): the cache
    /// limit evicts the least recently used first.
    private let accessed = Mutex<[String: Double]>([:])
    /// Whether writes are refused (`EROFS`): a read-only share.
    let readOnly: Atomic<Bool>
    /// How long a read or an open of content that is not local waits for the backend
    /// before it fails with `EIO`; making a file local for a write waits four times as long.
    let fetchTimeout: Duration

    /// `partialDirectory`: where parts of not-local documents are kept (emptied now).
    public init(backing: String, partialDirectory: String, source: any OnDemandSource, logger: Logger,
                fetchTimeout: Duration = .seconds(30), readOnly: Bool = false) throws {
        self.backing = backing.hasSuffix("/") && backing.count > 1 ? String(backing.dropLast()) : backing
        self.source = source
        self.logger = logger
        self.fetchTimeout = fetchTimeout
        self.notes = ChangeNotes(source: source)
        self.partial = try PartialContent(directory: partialDirectory)
        self.readOnly = Atomic(readOnly)
    }

    /// Refuses writes with `EROFS` (a read-only share) or allows them again.
    public func setReadOnly(_ value: Bool) { readOnly.store(value, ordering: .relaxed) }

    // MARK: names and paths

    /// Names the mount never shows: the engine's placeholders and temporary files.
    static func isHidden(_ name: String) -> Bool {
        name.hasPrefix(IgnoreRules.temporaryFilePrefix) || shownName(ofPlaceholder: name) != nil
    }

    /// The name a placeholder's name `.NAME.docsync` shows (`NAME`), nil for any other name.
    static func shownName(ofPlaceholder name: String) -> String? {
        guard name.hasPrefix("."), name.hasSuffix(IgnoreRules.placeholderSuffix),
              name.utf8.count > 1 + IgnoreRules.placeholderSuffix.utf8.count else { return nil }
        return String(name.dropFirst().dropLast(IgnoreRules.placeholderSuffix.count))
    }

    /// The placeholder name of `name` (`.NAME.docsync`).
    public static func placeholderName(of name: String) -> String { "." + name + IgnoreRules.placeholderSuffix }

    /// The relative path of `id` ("" for the root), nil when the kernel names an id it forgot
    /// or a removed item.
    func relative(_ id: UInt64) -> String? { nodes.path(of: id) }

    func absolute(_ relative: String) -> String { relative.isEmpty ? backing : backing + "/" + relative }

    static func join(_ parent: String, _ name: String) -> String { parent.isEmpty ? name : parent + "/" + name }

    /// What backs a visible item.
    enum Backing {
        /// A file, directory or symlink in the content directory.
        case real(stat)
        /// A document shown by its placeholder (the placeholder's stat has the document's
        /// size, mode and modification time).
        case placeholder(stat)

        var status: stat {
            switch self {
            case .real(let status), .placeholder(let status): status
            }
        }
    }

    /// What backs `relative`, or the errno saying why nothing does.
    func backingOf(_ relative: String) -> Result<Backing, Errno> {
        var status = stat()
        let path = absolute(relative)
        if lstat(path, &status) == 0 { return .success(.real(status)) }
        let code = errno
        guard code == ENOENT, !relative.isEmpty else { return .failure(Errno(code)) }
        let name = Self.name(of: relative)
        let placeholder = absolute(Self.join(Self.parent(of: relative), Self.placeholderName(of: name)))
        guard lstat(placeholder, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return .failure(Errno(ENOENT)) }
        status.st_blocks = 0
        return .success(.placeholder(status))
    }

    static func name(of relative: String) -> String {
        guard let slash = relative.lastIndex(of: "/") else { return relative }
        return String(relative[relative.index(after: slash)...])
    }

    static func parent(of relative: String) -> String {
        guard let slash = relative.lastIndex(of: "/") else { return "" }
        return String(relative[..<slash])
    }

    /// The placeholder's absolute path for the document at `relative`.
    func placeholderPath(of relative: String) -> String {
        absolute(Self.join(Self.parent(of: relative), Self.placeholderName(of: Self.name(of: relative))))
    }

    // MARK: use

    func noteAccess(_ path: String) {
        let now = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
        accessed.withLock { $0[path] = now }
    }

    /// When `path` was last opened through the mount (seconds of an uptime clock), or nil.
    func lastAccess(of path: String) -> Double? { accessed.withLock { $0[path] } }

    /// The paths with a file open through the mount now.
    var openPaths: Set<String> { Set(handles.openNodes.compactMap { relative($0) }) }

    // MARK: telling the engine

    /// Changes seen through the mount, handed to the engine once the mount has been quiet for
    /// `ChangeNotes.quiet` (or the oldest waited `ChangeNotes.longest`): as a watcher reports
    /// files that settled, so the engine compares a burst of changes (`git gc`, an editor's
    /// save) once it is over, not its middle.
    func note(_ events: [WatchEvent]) { notes.add(events) }

    // MARK: replies

    /// Replies with the entry `name` in `parent` (its id now held once more by the kernel).
    func replyEntry(_ request: fuse_req_t?, parent: UInt64, name: String, status: stat) {
        var entry = entryParameter(id: nodes.lookup(parent, name), status: status)
        if fuse_reply_entry(request, &entry) != 0 { nodes.forget(entry.ino, 1) }
    }

    func entryParameter(id: UInt64, status: stat) -> fuse_entry_param {
        var entry = fuse_entry_param()
        entry.ino = id
        entry.generation = 1
        // `st_ino` stays the content directory's: stable across lookups and restarts, as
        // programs that compare it (git's index, backup tools) need.
        entry.attr = status
        entry.attr_timeout = cacheSeconds
        entry.entry_timeout = cacheSeconds
        return entry
    }

    func replyAttributes(_ request: fuse_req_t?, id: UInt64, status: stat) {
        var status = status
        fuse_reply_attr(request, &status, cacheSeconds)
    }

    func replyError(_ request: fuse_req_t?, _ code: Int32) { fuse_reply_err(request, code) }
}

/// An errno value as an error.
struct Errno: Error, Equatable {
    let code: Int32
    init(_ code: Int32) { self.code = code }
    static var current: Errno { Errno(errno) }
}

/// A FUSE request handed to another task to be answered there.
struct PendingRequest: @unchecked Sendable {
    let raw: fuse_req_t?
}
