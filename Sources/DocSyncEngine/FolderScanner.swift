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
    /// included unless it is the root; nothing is returned when it does not exist.
    public func scan(_ start: RelativePath?) -> Result {
        var result = Result()
        if let start {
            if isIgnored(start) { return result }
            guard let stat = try? fileSystem.status(absolute(start)) else { return result }
            guard stat.kind != .special else {
                result.problems.append(ItemProblem(path: start.string, message: FolderScanner.specialMessage))
                return result
            }
            result.entries.append(Entry(path: start, stat: stat))
            if stat.kind == .directory { walk(start, into: &result) }
        } else {
            walk(nil, into: &result)
        }
        return result
    }

    /// True when `path` or one of its ancestors is ignored.
    public func isIgnored(_ path: RelativePath, isDirectory: Bool = false) -> Bool {
        ignores.isIgnored(path, isDirectory: isDirectory)
    }

    static let specialMessage = "FIFOs, sockets and device files are not synced"

    private func walk(_ directory: RelativePath?, into result: inout Result) {
        var stack: [RelativePath?] = [directory]
        while let next = stack.popLast() {
            let names: [[UInt8]]
            do { names = try fileSystem.entryNames(absolute(next)) } catch {
                if next != nil || error.code != ENOENT {
                    result.unreadable.append(next?.string ?? "")
                    result.problems.append(ItemProblem(path: next?.string ?? ".", message: "cannot read this folder: \(error)"))
                }
                continue
            }
            for nameBytes in names {
                guard let name = String(validating: nameBytes, as: UTF8.self) else {
                    result.problems.append(ItemProblem(
                        path: PathDisplay.escaped(parent: next, nameBytes: nameBytes),
                        message: "the name is not valid UTF-8; rename it to sync it"))
                    continue
                }
                let path: RelativePath
                do throws(SyncError) {
                    if let next { path = try next.appending(name) } else { path = try RelativePath(validating: name) }
                } catch {
                    result.problems.append(ItemProblem(path: (next.map { $0.string + "/" } ?? "") + name, message: "cannot be synced: \(error.message)"))
                    continue
                }
                let stat: FileStat
                do {
                    guard let found = try fileSystem.status(absolute(path)) else { continue }  // gone meanwhile
                    stat = found
                } catch {
                    result.problems.append(ItemProblem(path: path.string, message: "cannot be examined: \(error)"))
                    continue
                }
                if ignores.isIgnored(name: name, parent: next, isDirectory: stat.kind == .directory) { continue }
                if stat.kind == .special {
                    result.problems.append(ItemProblem(path: path.string, message: FolderScanner.specialMessage))
                    continue
                }
                result.entries.append(Entry(path: path, stat: stat))
                if stat.kind == .directory { stack.append(path) }
            }
        }
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
