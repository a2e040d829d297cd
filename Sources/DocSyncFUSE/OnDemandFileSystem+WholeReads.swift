import DocSyncCore
import Foundation
import Glibc

/// Documents read whole through the mount, kept when the folder is no longer served (a share
/// that ended, SPEC §14): their content is on this device, in the partial cache.
extension OnDemandFileSystem {
    /// Of the not-local documents at `paths`, those whose version the placeholder shows is
    /// whole in the partial cache (every chunk verified) are written in place of their
    /// placeholders in the content directory, with the placeholder's mode and times, under
    /// their own names. Returns the paths kept; a failure leaves that placeholder as it was.
    public func keepWholeReads(_ paths: [String]) async -> Set<String> {
        var kept: Set<String> = []
        for path in paths {
            guard case .success(.placeholder(let shown)) = backingOf(path), let relativePath = try? RelativePath(validating: path),
                  let layout = try? await source.remoteLayout(of: relativePath, placeholderInode: UInt64(shown.st_ino)),
                  let whole = partial.wholeFile(for: layout) else { continue }
            let placeholder = absolute(Self.join(Self.parent(of: path), Self.placeholderName(of: Self.name(of: path))))
            do {
                try Self.copy(whole.path, over: placeholder, keeping: shown, renamedTo: absolute(path))
                kept.insert(path)
            } catch {
                logger.warning("a file read whole through the mount could not be kept", metadata: ["path": "\(path)", "error": "\(error)"])
            }
        }
        if !kept.isEmpty { logger.notice("files read whole through the mount are kept as plain files", metadata: ["files": "\(kept.count)"]) }
        return kept
    }

    /// Writes the content of `source` into the placeholder `target` (same inode), restores
    /// the placeholder's times (`shown`), makes it durable and renames it to `name`.
    private static func copy(_ source: String, over target: String, keeping shown: stat, renamedTo name: String) throws(SyncError) {
        func failure(_ what: String) -> SyncError { SyncError(.internalError, "\(what): \(String(cString: strerror(errno)))") }
        let input = Glibc.open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw failure("open \(source)") }
        defer { Glibc.close(input) }
        let output = Glibc.open(target, O_WRONLY | O_CLOEXEC)
        guard output >= 0 else { throw failure("open \(target)") }
        defer { Glibc.close(output) }
        let size = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 4096)
        defer { buffer.deallocate() }
        var offset: off_t = 0
        while true {
            let got = pread(input, buffer, size, offset)
            guard got >= 0 else { throw failure("read \(source)") }
            if got == 0 { break }
            guard pwrite(output, buffer, got, offset) == got else { throw failure("write \(target)") }
            offset += off_t(got)
        }
        guard ftruncate(output, offset) == 0 else { throw failure("truncate \(target)") }
        var times = [shown.st_atim, shown.st_mtim]
        guard futimens(output, &times) == 0, Glibc.fsync(output) == 0 else { throw failure("finish \(target)") }
        guard Glibc.rename(target, name) == 0 else { throw failure("rename \(target)") }
    }
}
