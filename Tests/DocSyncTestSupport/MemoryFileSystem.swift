import DocSyncCore
import DocSyncEngine
import Foundation
import Synchronization

/// A `FolderFileSystem` in memory, for engines in a simulation: no disk, a clock of the
/// caller's, any call made to fail, and a crash that drops what was not made durable.
///
/// It keeps POSIX's rules where the engine relies on them (exclusive creation, renames that
/// replace or refuse, `lstat` versus `stat`, hard links sharing an inode, `ENOTEMPTY`,
/// `ELOOP` for a final symlink opened for reading) and is deterministic: inode numbers count
/// up from 2, times come from `clock`, and nothing depends on the wall clock or a hash seed.
///
/// Durability: a file's content is durable once its `WritableFile` finished with `flush`, or
/// after `flushFileSystem`; a directory's entries once `flushDirectory` or `flushFileSystem`
/// ran on it. `crash()` puts every file and directory back to what was durable (renames,
/// creations and deletions since are undone; files keep their last durable content). A
/// rename is durable whole or not at all, as a journal keeps it: making either directory
/// durable makes it (and the renames before it) durable in both, so a crash never leaves an
/// item in both places or a directory inside itself.
public final class MemoryFileSystem: FolderFileSystem, Sendable {
    /// A call, as `failing` sees it.
    public enum Call: String, Sendable, CaseIterable {
        case status, statusFollowingLinks, entryNames, linkTarget, openForReading, read, createFile, append, finish
        case makeDirectory, makeDirectories, removeDirectory, removeFile, rename, renameIfFree, renameWithoutReplacing
        case makeSymlink, hardLink, copyFile, setMode, setModified, flushDirectory, flushFileSystem
    }

    struct Node {
        enum Kind { case file, directory, symlink }
        var kind: Kind
        var mode: UInt32
        var modified: Timestamp
        var content = Data()
        var durableContent = Data()
        var target = ""
        /// A directory's entries by name, and those that survive a crash.
        var entries: [[UInt8]: UInt64] = [:]
        var durableEntries: [[UInt8]: UInt64] = [:]
    }

    struct State {
        var nodes: [UInt64: Node] = [1: Node(kind: .directory, mode: 0o755, modified: Timestamp(nanosecondsSince1970: 0))]
        var nextInode: UInt64 = 2
        var failing: (@Sendable (Call, String) -> Int32?)?
        /// Renames since the last crash or `flushFileSystem` not yet durable, in order.
        var unflushedRenames: [Rename] = []
    }

    /// One rename: `inode` left `from` (a directory's inode and a name) for `to`.
    struct Rename {
        var inode: UInt64
        var from: (directory: UInt64, name: [UInt8])
        var to: (directory: UInt64, name: [UInt8])
    }

    private let state = Mutex(State())
    /// Where times come from: a file's modification time when it is created or written.
    public let clock: @Sendable () -> Timestamp

    public init(clock: @escaping @Sendable () -> Timestamp) {
        self.clock = clock
    }

    /// Makes calls fail: `decide` is asked before each call with its path and returns the
    /// `errno` to fail it with (`ENOSPC`, `EIO`…), or `nil` to let it run. `nil`: no faults.
    public func setFailing(_ decide: (@Sendable (Call, String) -> Int32?)?) {
        state.withLock { $0.failing = decide }
    }

    /// Everything not made durable is lost, as in a power cut.
    public func crash() {
        state.withLock { state in
            for key in state.nodes.keys {
                state.nodes[key]!.content = state.nodes[key]!.durableContent
                state.nodes[key]!.entries = state.nodes[key]!.durableEntries
            }
            state.unflushedRenames = []
        }
    }

    // MARK: paths

    private static let dot: [UInt8] = [UInt8(ascii: ".")]
    private static let dotDot: [UInt8] = [UInt8(ascii: "."), UInt8(ascii: ".")]

    private static func components(_ path: String) -> [[UInt8]] {
        path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map(Array.init)
    }

    /// The inode `path` names (following symlinks on the way, and at the end with `follow`),
    /// or the `errno` of the lookup.
    private static func resolve(_ path: String, follow: Bool, in state: State, depth: Int = 0) -> Result<UInt64, FileSystemError> {
        guard depth < 40 else { return .failure(FileSystemError(ELOOP)) }
        var current: UInt64 = 1
        var walked: [[UInt8]] = []
        let parts = components(path)
        for (position, name) in parts.enumerated() {
            guard let node = state.nodes[current], node.kind == .directory else { return .failure(FileSystemError(ENOTDIR)) }
            if name == Self.dot { continue }
            if name == Self.dotDot {
                walked = walked.dropLast()
                current = (try? resolve("/" + walked.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "/"), follow: true, in: state, depth: depth + 1).get()) ?? 1
                continue
            }
            guard let next = node.entries[name], let child = state.nodes[next] else { return .failure(FileSystemError(ENOENT)) }
            let last = position == parts.count - 1
            if child.kind == .symlink, !last || follow {
                let base = "/" + walked.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "/")
                let target = child.target.hasPrefix("/") ? child.target : base + "/" + child.target
                let rest = parts[(position + 1)...].map { String(decoding: $0, as: UTF8.self) }.joined(separator: "/")
                return resolve(rest.isEmpty ? target : target + "/" + rest, follow: follow, in: state, depth: depth + 1)
            }
            walked.append(name)
            current = next
        }
        return .success(current)
    }

    /// The directory holding `path`'s last component, and that component.
    private static func parent(_ path: String, in state: State) -> Result<(UInt64, [UInt8]), FileSystemError> {
        var parts = components(path)
        guard let name = parts.popLast() else { return .failure(FileSystemError(EBUSY)) }
        let directory = "/" + parts.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "/")
        switch resolve(directory, follow: true, in: state) {
        case .failure(let error): return .failure(error)
        case .success(let inode):
            guard state.nodes[inode]?.kind == .directory else { return .failure(FileSystemError(ENOTDIR)) }
            return .success((inode, name))
        }
    }

    private func stat(_ inode: UInt64, _ node: Node) -> FileStat {
        let kind: FileStat.Kind = switch node.kind {
        case .file: .file
        case .directory: .directory
        case .symlink: .symlink
        }
        let size: Int64 = switch node.kind {
        case .file: Int64(node.content.count)
        case .directory: 4096
        case .symlink: Int64(node.target.utf8.count)
        }
        return FileStat(kind: kind, size: size, modified: node.modified, inode: inode, device: 1, mode: node.mode)
    }

    /// Runs `body` on the state under the lock, after the fault hook had its say.
    private func perform<T>(_ call: Call, _ path: String, _ body: (inout State) throws(FileSystemError) -> T) throws(FileSystemError) -> T {
        try state.withLock { (state) throws(FileSystemError) -> T in
            if let code = state.failing?(call, path) { throw FileSystemError(code) }
            return try body(&state)
        }
    }

    private func touch(_ directory: UInt64, in state: inout State) {
        state.nodes[directory]?.modified = clock()
    }

    // MARK: FolderFileSystem

    public func status(_ path: String) throws(FileSystemError) -> FileStat? {
        try perform(.status, path) { (state) throws(FileSystemError) -> FileStat? in
            switch Self.resolve(path, follow: false, in: state) {
            case .success(let inode): return stat(inode, state.nodes[inode]!)
            case .failure(let error) where error.code == ENOENT || error.code == ENOTDIR: return nil
            case .failure(let error): throw error
            }
        }
    }

    public func statusFollowingLinks(_ path: String) -> FileStat? {
        try? perform(.statusFollowingLinks, path) { (state) throws(FileSystemError) -> FileStat? in
            guard case .success(let inode) = Self.resolve(path, follow: true, in: state) else { return nil }
            return stat(inode, state.nodes[inode]!)
        }
    }

    public func entryNames(_ path: String) throws(FileSystemError) -> [[UInt8]] {
        try perform(.entryNames, path) { (state) throws(FileSystemError) -> [[UInt8]] in
            let inode = try Self.resolve(path, follow: true, in: state).get()
            guard let node = state.nodes[inode], node.kind == .directory else { throw FileSystemError(ENOTDIR) }
            return node.entries.keys.sorted { $0.lexicographicallyPrecedes($1) }
        }
    }

    public func linkTarget(_ path: String) throws(FileSystemError) -> [UInt8] {
        try perform(.linkTarget, path) { (state) throws(FileSystemError) -> [UInt8] in
            let inode = try Self.resolve(path, follow: false, in: state).get()
            guard let node = state.nodes[inode], node.kind == .symlink else { throw FileSystemError(EINVAL) }
            return Array(node.target.utf8)
        }
    }

    public func openForReading(_ path: String) throws(FileSystemError) -> any ReadableFile {
        let inode = try perform(.openForReading, path) { (state) throws(FileSystemError) -> UInt64 in
            let inode = try Self.resolve(path, follow: false, in: state).get()
            if state.nodes[inode]?.kind == .symlink { throw FileSystemError(ELOOP) }
            return inode
        }
        return MemoryReadableFile(fileSystem: self, inode: inode, path: path)
    }

    public func createFile(_ path: String, mode: UInt32, size: Int) throws(FileSystemError) -> any WritableFile {
        let inode = try perform(.createFile, path) { (state) throws(FileSystemError) -> UInt64 in
            let (directory, name) = try Self.parent(path, in: state).get()
            guard state.nodes[directory]!.entries[name] == nil else { throw FileSystemError(EEXIST) }
            let inode = state.nextInode
            state.nextInode += 1
            state.nodes[inode] = Node(kind: .file, mode: mode, modified: clock())
            state.nodes[directory]!.entries[name] = inode
            touch(directory, in: &state)
            return inode
        }
        return MemoryWritableFile(fileSystem: self, inode: inode, path: path)
    }

    public func makeDirectory(_ path: String, mode: UInt32) throws(FileSystemError) {
        try perform(.makeDirectory, path) { (state) throws(FileSystemError) in
            let (directory, name) = try Self.parent(path, in: state).get()
            guard state.nodes[directory]!.entries[name] == nil else { throw FileSystemError(EEXIST) }
            let inode = state.nextInode
            state.nextInode += 1
            state.nodes[inode] = Node(kind: .directory, mode: mode, modified: clock())
            state.nodes[directory]!.entries[name] = inode
            touch(directory, in: &state)
        }
    }

    public func makeDirectories(_ path: String) throws(FileSystemError) {
        var built = ""
        for part in Self.components(path) {
            built += "/" + String(decoding: part, as: UTF8.self)
            if let found = try status(built) {
                guard found.kind == .directory else { throw FileSystemError(ENOTDIR) }
                continue
            }
            do { try makeDirectory(built, mode: 0o755) } catch where error.code == EEXIST {}
        }
    }

    public func removeDirectory(_ path: String) throws(FileSystemError) {
        try perform(.removeDirectory, path) { (state) throws(FileSystemError) in
            let (directory, name) = try Self.parent(path, in: state).get()
            guard let inode = state.nodes[directory]!.entries[name] else { throw FileSystemError(ENOENT) }
            guard let node = state.nodes[inode], node.kind == .directory else { throw FileSystemError(ENOTDIR) }
            guard node.entries.isEmpty else { throw FileSystemError(ENOTEMPTY) }
            state.nodes[directory]!.entries[name] = nil
            touch(directory, in: &state)
        }
    }

    public func removeFile(_ path: String) throws(FileSystemError) {
        try perform(.removeFile, path) { (state) throws(FileSystemError) in
            let (directory, name) = try Self.parent(path, in: state).get()
            guard let inode = state.nodes[directory]!.entries[name] else { throw FileSystemError(ENOENT) }
            guard state.nodes[inode]?.kind != .directory else { throw FileSystemError(EISDIR) }
            state.nodes[directory]!.entries[name] = nil
            touch(directory, in: &state)
        }
    }

    public func rename(_ source: String, to target: String) throws(FileSystemError) {
        try move(.rename, source, target, replacing: true)
    }

    public func renameIfFree(_ source: String, to target: String) throws(FileSystemError) {
        try move(.renameIfFree, source, target, replacing: false)
    }

    public func renameWithoutReplacing(_ source: String, to target: String) throws(FileSystemError) {
        try move(.renameWithoutReplacing, source, target, replacing: false)
    }

    private func move(_ call: Call, _ source: String, _ target: String, replacing: Bool) throws(FileSystemError) {
        try perform(call, source) { (state) throws(FileSystemError) in
            let (from, fromName) = try Self.parent(source, in: state).get()
            let (to, toName) = try Self.parent(target, in: state).get()
            guard let inode = state.nodes[from]!.entries[fromName] else { throw FileSystemError(ENOENT) }
            if let existing = state.nodes[to]!.entries[toName] {
                guard replacing else { throw FileSystemError(EEXIST) }
                if existing == inode { return }
                let moving = state.nodes[inode]!, replaced = state.nodes[existing]!
                if replaced.kind == .directory {
                    guard moving.kind == .directory else { throw FileSystemError(EISDIR) }
                    guard replaced.entries.isEmpty else { throw FileSystemError(ENOTEMPTY) }
                } else if moving.kind == .directory {
                    throw FileSystemError(ENOTDIR)
                }
            }
            // A directory may not move into itself, however the target is spelt (through a
            // symlink to it too): as the kernel, by the directories themselves, not their paths.
            if state.nodes[inode]!.kind == .directory, Self.directory(to, isOrIsBeneath: inode, in: state) { throw FileSystemError(EINVAL) }
            state.nodes[from]!.entries[fromName] = nil
            state.nodes[to]!.entries[toName] = inode
            state.unflushedRenames.append(Rename(inode: inode, from: (from, fromName), to: (to, toName)))
            touch(from, in: &state)
            touch(to, in: &state)
        }
    }

    /// Whether the directory `inode` is `ancestor` or lies anywhere beneath it.
    private static func directory(_ inode: UInt64, isOrIsBeneath ancestor: UInt64, in state: State) -> Bool {
        var pending = [ancestor]
        while let next = pending.popLast() {
            if next == inode { return true }
            guard let node = state.nodes[next], node.kind == .directory else { continue }
            pending.append(contentsOf: node.entries.values.filter { state.nodes[$0]?.kind == .directory })
        }
        return false
    }

    public func makeSymlink(_ target: String, at path: String) throws(FileSystemError) {
        try perform(.makeSymlink, path) { (state) throws(FileSystemError) in
            let (directory, name) = try Self.parent(path, in: state).get()
            guard state.nodes[directory]!.entries[name] == nil else { throw FileSystemError(EEXIST) }
            let inode = state.nextInode
            state.nextInode += 1
            state.nodes[inode] = Node(kind: .symlink, mode: 0o777, modified: clock(), target: target)
            state.nodes[directory]!.entries[name] = inode
            touch(directory, in: &state)
        }
    }

    public func hardLink(_ source: String, to target: String) throws(FileSystemError) {
        try perform(.hardLink, source) { (state) throws(FileSystemError) in
            let inode = try Self.resolve(source, follow: false, in: state).get()
            guard state.nodes[inode]!.kind != .directory else { throw FileSystemError(EPERM) }
            let (directory, name) = try Self.parent(target, in: state).get()
            guard state.nodes[directory]!.entries[name] == nil else { throw FileSystemError(EEXIST) }
            state.nodes[directory]!.entries[name] = inode
            touch(directory, in: &state)
        }
    }

    public func copyFile(_ source: String, to target: String) throws(FileSystemError) {
        try perform(.copyFile, source) { (state) throws(FileSystemError) in
            let inode = try Self.resolve(source, follow: true, in: state).get()
            guard let original = state.nodes[inode], original.kind == .file else { throw FileSystemError(EISDIR) }
            let (directory, name) = try Self.parent(target, in: state).get()
            guard state.nodes[directory]!.entries[name] == nil else { throw FileSystemError(EEXIST) }
            let copy = state.nextInode
            state.nextInode += 1
            state.nodes[copy] = Node(kind: .file, mode: original.mode, modified: original.modified, content: original.content)
            state.nodes[copy]!.durableContent = original.content
            state.nodes[directory]!.entries[name] = copy
            touch(directory, in: &state)
        }
    }

    public func setMode(_ path: String, _ mode: UInt32) throws(FileSystemError) {
        try perform(.setMode, path) { (state) throws(FileSystemError) in
            let inode = try Self.resolve(path, follow: true, in: state).get()
            state.nodes[inode]!.mode = mode & 0o7777
        }
    }

    public func setModified(_ path: String, _ modified: Timestamp) throws(FileSystemError) {
        try perform(.setModified, path) { (state) throws(FileSystemError) in
            let inode = try Self.resolve(path, follow: false, in: state).get()
            state.nodes[inode]!.modified = modified
        }
    }

    public func flushDirectory(_ path: String) throws(FileSystemError) {
        try perform(.flushDirectory, path) { (state) throws(FileSystemError) in
            let inode = try Self.resolve(path, follow: true, in: state).get()
            Self.makeRenamesDurable(through: inode, in: &state)
            state.nodes[inode]!.durableEntries = state.nodes[inode]!.entries
        }
    }

    /// Makes durable, in both of their directories, the unflushed renames up to the last one
    /// that touched `directory`.
    private static func makeRenamesDurable(through directory: UInt64, in state: inout State) {
        guard let last = state.unflushedRenames.lastIndex(where: { $0.from.directory == directory || $0.to.directory == directory }) else { return }
        for rename in state.unflushedRenames[...last] {
            if state.nodes[rename.from.directory]?.durableEntries[rename.from.name] == rename.inode {
                state.nodes[rename.from.directory]?.durableEntries[rename.from.name] = nil
            }
            state.nodes[rename.to.directory]?.durableEntries[rename.to.name] = rename.inode
        }
        state.unflushedRenames.removeFirst(last + 1)
    }

    public func flushFileSystem(containing path: String) -> Bool {
        do {
            try perform(.flushFileSystem, path) { (state) throws(FileSystemError) in
                for key in state.nodes.keys {
                    state.nodes[key]!.durableContent = state.nodes[key]!.content
                    state.nodes[key]!.durableEntries = state.nodes[key]!.entries
                }
                state.unflushedRenames = []
            }
            return true
        } catch {
            return false
        }
    }

    /// Appends `bytes` to the file at `path` in place (same inode), as a program writing at
    /// its end would; with `keepingModified` its modification time stays what it was (as
    /// after `touch -r`), so only its size tells. With `flush` the content is durable.
    public func append(_ bytes: Data, to path: String, keepingModified: Bool, flush: Bool) throws(FileSystemError) {
        try perform(.append, path) { (state) throws(FileSystemError) in
            let inode = try Self.resolve(path, follow: false, in: state).get()
            guard state.nodes[inode]!.kind == .file else { throw FileSystemError(EISDIR) }
            state.nodes[inode]!.content.append(bytes)
            if !keepingModified { state.nodes[inode]!.modified = clock() }
            if flush { state.nodes[inode]!.durableContent = state.nodes[inode]!.content }
        }
    }

    // MARK: for open files

    func withNode<T>(_ call: Call, _ path: String, _ inode: UInt64, _ body: (inout Node) throws(FileSystemError) -> T) throws(FileSystemError) -> T {
        try perform(call, path) { (state) throws(FileSystemError) -> T in
            guard state.nodes[inode] != nil else { throw FileSystemError(EBADF) }
            return try body(&state.nodes[inode]!)
        }
    }

    func stat(of inode: UInt64) -> FileStat? {
        state.withLock { state in state.nodes[inode].map { stat(inode, $0) } }
    }
}

/// An open file of a `MemoryFileSystem`: reads what the file holds at each read.
final class MemoryReadableFile: ReadableFile {
    let fileSystem: MemoryFileSystem
    let inode: UInt64
    let path: String

    init(fileSystem: MemoryFileSystem, inode: UInt64, path: String) {
        self.fileSystem = fileSystem
        self.inode = inode
        self.path = path
    }

    func status() throws(FileSystemError) -> FileStat {
        guard let found = fileSystem.stat(of: inode) else { throw FileSystemError(EBADF) }
        return found
    }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(FileSystemError) -> Int {
        try fileSystem.withNode(.read, path, inode) { (node) throws(FileSystemError) -> Int in
            guard node.kind == .file else { throw FileSystemError(EISDIR) }
            guard offset < Int64(node.content.count) else { return 0 }
            let start = node.content.startIndex + Int(offset)
            let count = min(buffer.count, node.content.count - Int(offset))
            node.content.copyBytes(to: buffer.bindMemory(to: UInt8.self), from: start..<start + count)
            return count
        }
    }

    func close() {}
}

/// A new file of a `MemoryFileSystem` being written.
final class MemoryWritableFile: WritableFile {
    let fileSystem: MemoryFileSystem
    let inode: UInt64
    let path: String

    init(fileSystem: MemoryFileSystem, inode: UInt64, path: String) {
        self.fileSystem = fileSystem
        self.inode = inode
        self.path = path
    }

    func append(_ bytes: Data) throws(FileSystemError) {
        let now = fileSystem.clock()
        try fileSystem.withNode(.append, path, inode) { (node) throws(FileSystemError) in
            node.content.append(bytes)
            node.modified = now
        }
    }

    func extend(to size: Int64) throws(FileSystemError) {
        let now = fileSystem.clock()
        try fileSystem.withNode(.append, path, inode) { (node) throws(FileSystemError) in
            if Int64(node.content.count) < size { node.content.append(Data(count: Int(size) - node.content.count)) }
            node.modified = now
        }
    }

    func finish(mode: UInt32, modified: Timestamp, flush: Bool) throws(FileSystemError) {
        try fileSystem.withNode(.finish, path, inode) { (node) throws(FileSystemError) in
            node.mode = mode & 0o7777
            node.modified = modified
            if flush { node.durableContent = node.content }
        }
    }

    func status() throws(FileSystemError) -> FileStat {
        guard let found = fileSystem.stat(of: inode) else { throw FileSystemError(EBADF) }
        return found
    }

    func close() {}
}

extension MemoryFileSystem {
    /// Writes `bytes` at `path` as a program would (in place when the file exists: same
    /// inode), with the clock's time, not flushed. Creates missing parent directories.
    public func write(_ bytes: Data, to path: String) throws(FileSystemError) {
        try makeDirectories(String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]))
        if try status(path) != nil { try removeFile(path) }
        let file = try createFile(path, mode: 0o644, size: bytes.count)
        try file.append(bytes)
        try file.finish(mode: 0o644, modified: clock(), flush: false)
    }

    /// The text of the file at `path`, or `nil`.
    public func text(_ path: String) -> String? {
        contents(path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Every item beneath `root` by relative path (as bytes: names that differ only in
    /// normalization are two) with its kind and, for a file, its content; `skipping` names
    /// left out (a root marker, say).
    public func tree(under root: String, skipping: Set<PathKey> = []) -> [PathKey: String] {
        var found: [PathKey: String] = [:]
        var pending = [""]
        while let next = pending.popLast() {
            let directory = next.isEmpty ? root : root + "/" + next
            for name in (try? entryNames(directory)) ?? [] {
                let text = String(decoding: name, as: UTF8.self)
                if next.isEmpty, skipping.contains(PathKey(text)) { continue }
                let relative = next.isEmpty ? text : next + "/" + text
                guard let found0 = try? status(root + "/" + relative) else { continue }
                switch found0.kind {
                case .directory:
                    found[PathKey(relative)] = "dir"
                    pending.append(relative)
                case .symlink:
                    found[PathKey(relative)] = "link " + String(decoding: (try? linkTarget(root + "/" + relative)) ?? [], as: UTF8.self)
                default:
                    found[PathKey(relative)] = "file " + (self.text(root + "/" + relative) ?? "?")
                }
            }
        }
        return found
    }
}
