import DocSyncCore
import Foundation
import Glibc
import Logging

/// What becomes of an on-demand folder whose share ended (SPEC §11, §14): nothing is
/// mounted; the files that are local move from the content directory to the folder's path
/// as plain files; the placeholders of those that are not go, and their paths are kept in
/// the state directory so that `docs-status` lists them, across restarts.
enum DetachedOnDemandFolder {
    /// The message the folder's status gives each document that was not local.
    static let notLocalMessage = "not on this device: the share ended before it was downloaded"

    /// Leaves the folder as plain files (again, harmlessly, after a restart) and returns the
    /// paths of the documents that were not local — `notLocal` the first time, the kept list
    /// afterwards.
    static func leave(content: URL, at root: URL, stateDirectory: URL, notLocal: [String], logger: Logger) throws -> [String] {
        let list = stateDirectory.appendingPathComponent("not-local-when-detached")
        var paths = notLocal
        if let kept = try? String(contentsOf: list, encoding: .utf8) {
            // Written once, when the share ended: the index still has documents kept then
            // (read whole through the mount) as not local.
            paths = kept.split(separator: "\n").map(String.init).sorted()
        } else {
            try (paths.joined(separator: "\n") + "\n").write(to: list, atomically: true, encoding: .utf8)
        }
        guard FileManager.default.fileExists(atPath: content.path) else { return paths }
        for path in paths {
            let item = content.appendingPathComponent(path)
            let placeholder = item.deletingLastPathComponent().appendingPathComponent("." + item.lastPathComponent + IgnoreRules.placeholderSuffix)
            try? FileManager.default.removeItem(at: placeholder)
        }
        OnDemandMountPoint.copyMarker(from: content, to: root)
        try OnDemandMountPoint.moveEntries(from: content, into: root, logger: logger)
        logger.notice("the share ended: the folder is no longer mounted, its local files stay as plain files",
                      metadata: ["path": "\(root.path)", "notLocal": "\(paths.count)"])
        return paths
    }
}

// MARK: documents read whole through the mount

extension DetachedOnDemandFolder {
    /// Of `notLocal`, the documents a program read whole through the mount at `root` (their
    /// `user.docsync.status` says `local`: every chunk is in the mount's partial cache,
    /// verified) are copied through the mount into their placeholders in `content`, which then
    /// take their names: they stay as plain files too (SPEC §14: the attribute says what is
    /// local). Call it while the folder is still mounted; the copy runs on a thread of its own,
    /// since the mount answers reads on the cooperative pool. Returns the paths kept.
    static func keepReadWhole(_ notLocal: [String], mountedAt root: URL, content: URL, logger: Logger) async -> Set<String> {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                var kept: Set<String> = []
                for path in notLocal where readAttribute("user.docsync.status", of: root.appendingPathComponent(path).path) == "local" {
                    do {
                        try copyThroughMount(path, from: root, into: content)
                        kept.insert(path)
                    } catch {
                        logger.warning("a file read whole through the mount could not be kept", metadata: ["path": "\(path)", "error": "\(error)"])
                    }
                }
                if !kept.isEmpty {
                    logger.notice("files read whole through the mount are kept as plain files", metadata: ["path": "\(root.path)", "files": "\(kept.count)"])
                }
                continuation.resume(returning: kept)
            }
            thread.start()
        }
    }

    /// Writes the content of `path` as the mount at `root` serves it into its placeholder in
    /// `content`, keeps the placeholder's mode and times, and renames it to the document's name.
    private static func copyThroughMount(_ path: String, from root: URL, into content: URL) throws {
        let item = content.appendingPathComponent(path)
        let placeholder = item.deletingLastPathComponent().appendingPathComponent("." + item.lastPathComponent + IgnoreRules.placeholderSuffix).path
        var shown = stat()
        guard lstat(placeholder, &shown) == 0, shown.st_mode & S_IFMT == S_IFREG else { throw DaemonError("no placeholder at \(placeholder)") }
        let source = Glibc.open(root.appendingPathComponent(path).path, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw DaemonError("open through the mount: \(String(cString: strerror(errno)))") }
        defer { Glibc.close(source) }
        let target = Glibc.open(placeholder, O_WRONLY | O_CLOEXEC)
        guard target >= 0 else { throw DaemonError("open \(placeholder): \(String(cString: strerror(errno)))") }
        defer { Glibc.close(target) }
        let size = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 4096)
        defer { buffer.deallocate() }
        var offset: off_t = 0
        while true {
            let got = pread(source, buffer, size, offset)
            guard got >= 0 else { throw DaemonError("read through the mount at \(offset): \(String(cString: strerror(errno)))") }
            if got == 0 { break }
            guard pwrite(target, buffer, got, offset) == got else { throw DaemonError("write \(placeholder): \(String(cString: strerror(errno)))") }
            offset += off_t(got)
        }
        var served = stat()
        guard fstat(source, &served) == 0, offset == served.st_size else { throw DaemonError("read \(offset) bytes of \(served.st_size)") }
        guard ftruncate(target, offset) == 0 else { throw DaemonError("truncate \(placeholder): \(String(cString: strerror(errno)))") }
        guard fsync(target) == 0 else { throw DaemonError("fsync \(placeholder): \(String(cString: strerror(errno)))") }
        var times = [shown.st_atim, shown.st_mtim]
        _ = futimens(target, &times)
        guard Glibc.rename(placeholder, item.path) == 0 else { throw DaemonError("rename \(placeholder): \(String(cString: strerror(errno)))") }
    }

    /// The extended attribute `name` of `path` (libc's `getxattr`; Glibc's module leaves
    /// `sys/xattr.h` out), or `nil`.
    private static func readAttribute(_ name: String, of path: String) -> String? {
        guard let symbol = dlsym(nil, "getxattr") else { return nil }
        typealias GetAttribute = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int
        let getxattr = unsafeBitCast(symbol, to: GetAttribute.self)
        var value = [UInt8](repeating: 0, count: 64)
        let length = getxattr(path, name, &value, value.count)
        return length < 0 ? nil : String(decoding: value.prefix(length), as: UTF8.self)
    }
}
