import DocSyncCore
import Foundation

/// Walks a synced folder (or part of it) and reports what is on disk, as the index sees it.
///
/// Never follows symlinks (a symlinked directory is one `symlink` entry), never leaves the
/// folder, and skips what the ignore rules exclude. Entries that cannot be synced — names
/// that are not valid UTF-8 or break path limits, FIFOs, sockets and devices, directories
/// that cannot be read — are reported as problems and skipped; nothing else is affected.
public struct FolderScanner: Sendable {
    public struct Entry: Sendable, Hashable {
        public var path: RelativePath
        public var stat: FileStat
    }

    public struct Result: Sendable {
        public var entries: [Entry] = []
        public var problems: [ItemProblem] = []
        /// Directories whose listing failed ("" for the root): their index entries must not
        /// be taken as deleted.
        public var unreadable: [String] = []
        /// Files named as a download's temporary file by another process than this one (a
        /// crash's leftovers): never entries, listed so that the first scan removes them.
        public var leftoverTemporaryFiles: [RelativePath] = []
        /// Placeholders (never entries), each as the path of the item it shows with the
        /// placeholder's own status: a placeholder moved is its item moved.
        public var placeholders: [Entry] = []
    }

    public let root: URL
    public let ignores: IgnoreRules
    public let fileSystem: any FolderFileSystem

    public init(root: URL, ignores: IgnoreRules, fileSystem: any FolderFileSystem = PosixFileSystem()) {
        self.root = root
        self.ignores = ignores
        self.fileSystem = fileSystem
    }

    /// The absolute path of `path` in the folder.
    public func absolute(_ path: RelativePath?) -> String {
        guard let path else { return root.path }
        return root.path + "/" + path.string
    }

    /// Everything at and beneath `start` (`nil`: the whole folder). The start itself is
    /// included unless it is the root; nothing is returned when it does not exist. Entries
    /// come in the byte order of their paths (see `visit`).
    public func scan(_ start: RelativePath?) -> Result {
        var entries: [Entry] = []
        var result = visit(start) { entries.append($0) }
        result.entries = entries
        return result
    }

    /// Walks what `scan` returns without keeping it: `body` sees each entry once, in the byte
    /// order of the paths (SQLite's order for them), so a caller can compare the walk with
    /// the index's rows as both go. Memory grows with the folder's depth and its widest
    /// directory, not with its size. Returns the problems and unreadable directories;
    /// `entries` is empty.
    @discardableResult
    public func visit(_ start: RelativePath?, _ body: (Entry) throws -> Void) rethrows -> Result {
        var result = Result()
        if let start {
            if isIgnored(start) { return result }
            guard let stat = try? fileSystem.status(absolute(start)) else { return result }
            guard stat.kind != .special else {
                result.problems.append(ItemProblem(path: start.string, message: FolderScanner.specialMessage))
                return result
            }
            try body(Entry(path: start, stat: stat))
            if stat.kind == .directory { try walk(start, into: &result, body) }
        } else {
            try walk(nil, into: &result, body)
        }
        return result
    }

    /// True when `path` or one of its ancestors is ignored.
    public func isIgnored(_ path: RelativePath, isDirectory: Bool = false) -> Bool {
        ignores.isIgnored(path, isDirectory: isDirectory)
    }

    static let specialMessage = "FIFOs, sockets and device files are not synced"

    /// One step of a walk in byte order: an entry to report, or a directory's contents to
    /// walk. A directory `d` is reported at the key `d` and walked at the key `d/`: every
    /// path beneath it starts with `d/`, and no name holds a `/`, so sorting the keys of one
    /// directory's listing puts its whole subtree where the byte order of full paths does.
    private enum Step {
        case report(Entry)
        case descend(RelativePath)
    }

    private func walk(_ directory: RelativePath?, into result: inout Result, _ body: (Entry) throws -> Void) rethrows {
        // Each level's steps, sorted, consumed from the end.
        var levels: [[(key: [UInt8], step: Step)]] = [steps(of: directory, into: &result)]
        while !levels.isEmpty {
            guard let (_, step) = levels[levels.count - 1].popLast() else {
                levels.removeLast()
                continue
            }
            switch step {
            case .report(let entry): try body(entry)
            case .descend(let path): levels.append(steps(of: path, into: &result))
            }
        }
    }

    /// The steps of one directory's listing, sorted last first (for `popLast`).
    private func steps(of directory: RelativePath?, into result: inout Result) -> [(key: [UInt8], step: Step)] {
        var steps: [(key: [UInt8], step: Step)] = []
        for entry in listing(of: directory, into: &result) {
            let name = Array(entry.path.name.utf8)
            steps.append((name, .report(entry)))
            if entry.stat.kind == .directory { steps.append((name + [UInt8(ascii: "/")], .descend(entry.path))) }
        }
        steps.sort { $1.key.lexicographicallyPrecedes($0.key) }
        return steps
    }

    /// The entries of one directory (not beneath it): named validly, not ignored, not special.
    private func listing(of directory: RelativePath?, into result: inout Result) -> [Entry] {
        let listed: [DirectoryEntry]
        do { listed = try fileSystem.entriesWithStatus(absolute(directory)) } catch {
            if directory != nil || error.code != ENOENT {
                result.unreadable.append(directory?.string ?? "")
                result.problems.append(ItemProblem(path: directory?.string ?? ".", message: "cannot read this folder: \(error)"))
            }
            return []
        }
        var entries: [Entry] = []
        for item in listed {
            let nameBytes = item.name
            guard let name = String(validating: nameBytes, as: UTF8.self) else {
                result.problems.append(ItemProblem(
                    path: PathDisplay.escaped(parent: directory, nameBytes: nameBytes),
                    message: "the name is not valid UTF-8; rename it to sync it"))
                continue
            }
            let path: RelativePath
            do throws(SyncError) {
                if let directory { path = try directory.appending(name) } else { path = try RelativePath(validating: name) }
            } catch {
                result.problems.append(ItemProblem(path: (directory.map { $0.string + "/" } ?? "") + name, message: "cannot be synced: \(error.message)"))
                continue
            }
            let stat: FileStat
            do {
                guard let found = try item.status.get() else { continue }  // gone meanwhile
                stat = found
            } catch {
                result.problems.append(ItemProblem(path: path.string, message: "cannot be examined: \(error)"))
                continue
            }
            if name.hasBytePrefix(Materializer.temporaryPrefix), !name.hasBytePrefix(Materializer.ownTemporaryPrefix), stat.kind != .directory {
                result.leftoverTemporaryFiles.append(path)
                continue
            }
            if stat.kind == .file, let item = Placeholder.itemPath(of: path) {
                result.placeholders.append(Entry(path: item, stat: stat))
                continue
            }
            if ignores.isIgnored(name: name, parent: directory, isDirectory: stat.kind == .directory) { continue }
            if stat.kind == .special {
                result.problems.append(ItemProblem(path: path.string, message: FolderScanner.specialMessage))
                continue
            }
            entries.append(Entry(path: path, stat: stat))
        }
        return entries
    }
}

/// How paths that cannot be shown as they are appear in status and logs.
public enum PathDisplay {
    /// `parent/name` with every byte of `nameBytes` that is not part of valid UTF-8 shown as `\xNN`.
    public static func escaped(parent: RelativePath?, nameBytes: [UInt8]) -> String {
        var name = ""
        var index = 0
        while index < nameBytes.count {
            // Take the longest valid UTF-8 prefix of up to 4 bytes, or escape one byte.
            var taken = false
            for length in (1...min(4, nameBytes.count - index)).reversed() {
                if let piece = String(validating: nameBytes[index..<index + length], as: UTF8.self), piece.unicodeScalars.count == 1 {
                    name += piece
                    index += length
                    taken = true
                    break
                }
            }
            if !taken {
                name += String(format: "\\x%02X", nameBytes[index])
                index += 1
            }
        }
        return (parent.map { $0.string + "/" } ?? "") + name
    }
}

extension String {
    /// This string as a valid relative path, or throws `invalidArguments`.
    func asRelativePath() throws(SyncError) -> RelativePath { try RelativePath(validating: self) }
}
