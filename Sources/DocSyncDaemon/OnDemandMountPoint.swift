import DocSyncCore
import DocSyncFUSE
import Foundation
import Glibc
import Logging

/// The directory an on-demand folder is mounted on, and its content directory in the
/// folder's state (SPEC §14): what moves between the two when nothing is mounted.
///
/// What a caller may rely on: items move by rename (nothing is read or sent; a copy only
/// across file systems), never over an item already at the other side — such a one keeps
/// its name with ` (left in the mount point)` added — and the root marker stays in both.
enum OnDemandMountPoint {
    /// The content directory of a folder whose state is `stateDirectory`.
    static func contentDirectory(in stateDirectory: URL) -> URL { stateDirectory.appendingPathComponent("content") }

    /// Where parts of documents read through the mount are kept.
    static func partialDirectory(in stateDirectory: URL) -> URL { stateDirectory.appendingPathComponent("partial") }

    /// Moves everything in `source` but the root marker into `target` (made when missing):
    /// files left in the mount point while nothing was mounted (taken in as local changes),
    /// or a folder's files when it switches between `mirror` and `on-demand`. Returns the
    /// names moved.
    @discardableResult
    static func moveEntries(from source: URL, into target: URL, logger: Logger) throws -> [String] {
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        let names = try FileManager.default.contentsOfDirectory(atPath: source.path).filter { $0 != IgnoreRules.rootMarkerName }
        var moved: [String] = []
        for name in names.sorted() {
            let from = source.appendingPathComponent(name).path
            var destination = target.appendingPathComponent(name).path
            if exists(destination) || exists(target.appendingPathComponent(OnDemandFileSystem.placeholderName(of: name)).path) {
                destination = target.appendingPathComponent(keptName(name, in: target)).path
            }
            if Glibc.rename(from, destination) != 0 {
                guard errno == EXDEV else {
                    throw DaemonError("cannot move \(from) into \(target.path): \(String(cString: strerror(errno)))")
                }
                try FileManager.default.copyItem(atPath: from, toPath: destination)
                try FileManager.default.removeItem(atPath: from)
            }
            moved.append(name)
        }
        if !moved.isEmpty {
            logger.notice("moved items into the folder's content", metadata: ["from": "\(source.path)", "to": "\(target.path)", "items": "\(moved.count)"])
        }
        return moved
    }

    /// The processes (pids) with a file or directory beneath `directory` open, or with their
    /// working directory there, as `/proc` shows them (other users' processes may be hidden).
    static func processesUsing(_ directory: URL) -> [Int32] {
        let prefix = directory.path + "/"
        guard let pids = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        let me = getpid()
        var using: [Int32] = []
        for name in pids {
            guard let pid = Int32(name), pid != me else { continue }
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            let links = descriptors.map { "/proc/\(pid)/fd/\($0)" } + ["/proc/\(pid)/cwd"]
            if links.contains(where: { link in
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link) else { return false }
                return target.hasPrefix(prefix) || target == directory.path && link.hasSuffix("/cwd")
            }) { using.append(pid) }
        }
        return using
    }

    /// Whether `source` holds anything but the root marker.
    static func holdsItems(_ source: URL) -> Bool {
        ((try? FileManager.default.contentsOfDirectory(atPath: source.path)) ?? []).contains { $0 != IgnoreRules.rootMarkerName }
    }

    /// Copies the root marker of `from` to `to` when `to` has none.
    static func copyMarker(from: URL, to: URL) {
        let source = from.appendingPathComponent(IgnoreRules.rootMarkerName), target = to.appendingPathComponent(IgnoreRules.rootMarkerName)
        guard exists(source.path), !exists(target.path) else { return }
        try? FileManager.default.copyItem(at: source, to: target)
    }

    private static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// `name` with ` (left in the mount point)` (and a number, when taken) before its extension.
    private static func keptName(_ name: String, in directory: URL) -> String {
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
        let stem = dot.map { String(name[..<$0]) } ?? name, suffix = dot.map { String(name[$0...]) } ?? ""
        var number = 1
        while true {
            let candidate = stem + " (left in the mount point" + (number == 1 ? "" : " \(number)") + ")" + suffix
            if !exists(directory.appendingPathComponent(candidate).path) { return candidate }
            number += 1
        }
    }
}
