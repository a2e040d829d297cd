import DocSyncCore
import Foundation

/// What a synced folder holds, as two devices must agree on it: every path with its kind,
/// content digest (files) or target (symlinks), size and permission bits, and the file's
/// mtime. Nothing is excluded but the root marker (never synced, one per device), so a
/// leftover temporary file is a difference. Paths and targets are compared as bytes: names
/// that differ only in Unicode normalization are two entries.
struct TreeSnapshot: Equatable, CustomStringConvertible {
    struct Entry: Equatable {
        var kind: String
        var size: Int64
        var mode: UInt32
        var modified: Int64
        var content: PathKey
    }

    var entries: [PathKey: Entry] = [:]

    init(_ root: URL) {
        var stack = [""]
        while let next = stack.popLast() {
            let directory = next.isEmpty ? root.path : root.path + "/" + next
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { continue }
            for name in names where !(next.isEmpty && name == IgnoreRules.rootMarkerName) {
                let relative = next.isEmpty ? name : next + "/" + name
                let path = root.path + "/" + relative
                var st = stat()
                guard lstat(path, &st) == 0 else { continue }
                let mode = UInt32(st.st_mode) & 0o7777
                switch st.st_mode & S_IFMT {
                case S_IFDIR:
                    entries[PathKey(relative)] = Entry(kind: "dir", size: 0, mode: mode, modified: 0, content: "")
                    stack.append(relative)
                case S_IFLNK:
                    let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
                    entries[PathKey(relative)] = Entry(kind: "link", size: 0, mode: 0, modified: 0, content: PathKey(target))
                default:
                    let data = FileManager.default.contents(atPath: path) ?? Data()
                    entries[PathKey(relative)] = Entry(
                        kind: "file", size: Int64(st.st_size), mode: mode,
                        modified: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
                        content: PathKey(SHA256Digest(hashing: data).shortHex))
                }
            }
        }
    }

    var description: String {
        entries.keys.sorted().map { key in
            let e = entries[key]!
            return "\(key) \(e.kind) \(e.size) \(String(e.mode, radix: 8)) \(e.content)"
        }.joined(separator: "\n")
    }

    /// A readable list of what differs, for a failing expectation.
    func difference(from other: TreeSnapshot) -> String {
        let keys = Set(entries.keys).union(other.entries.keys).sorted()
        return keys.compactMap { key -> String? in
            let a = entries[key], b = other.entries[key]
            if a == b { return nil }
            return "\(key): \(a.map { "\($0)" } ?? "missing") vs \(b.map { "\($0)" } ?? "missing")"
        }.prefix(20).joined(separator: "\n")
    }
}

/// The names in `directory`, less a folder root's marker (never synced, one per device).
func syncedNames(_ directory: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0 != IgnoreRules.rootMarkerName }
}
