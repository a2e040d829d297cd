import DocSyncCore
import Foundation

/// The hidden file at a synced folder's root (`.docsync-root`, SPEC §4a) naming the folder
/// instance its index describes, and the look at the root that `FolderHold` decides on.
///
/// The marker is an ordinary file in the folder, so it lives as long as the folder does:
/// it survives reboots, a backup restore brings it back with the files, and a folder moved
/// by its user carries it along (point the configuration at the new path and the folder
/// resumes). An unmounted disk's mount point, a restored empty home or a mistyped path has
/// none. It is never synced (`IgnoreRules.rootMarkerName` is a default ignore).
enum RootMarker {
    static let name = IgnoreRules.rootMarkerName

    /// What the root at `root` is now. Never creates anything. A root that cannot be looked
    /// at (no permission) counts as missing.
    static func observe(_ root: String) -> FolderHold.Root {
        var info = stat()
        guard stat(root, &info) == 0 else { return .missing }
        guard info.st_mode & S_IFMT == S_IFDIR else { return .notADirectory }
        let marker = instance(in: root)
        // Whether it is empty matters only without a marker: the directory is not read otherwise.
        return .directory(marker: marker, isEmpty: marker == nil && isEmpty(root))
    }

    /// The identity of the root and its marker as `stat` sees them: while it stays the same,
    /// so does what `observe` finds (a look at the root can then be skipped). `nil` when
    /// either cannot be looked at.
    struct Fingerprint: Equatable {
        var root: [Int64]
        var marker: [Int64]
    }

    static func fingerprint(_ root: String) -> Fingerprint? {
        var folder = stat(), marker = stat()
        guard stat(root, &folder) == 0, stat(root + "/" + name, &marker) == 0 else { return nil }
        func facts(_ info: stat) -> [Int64] {
            [Int64(bitPattern: UInt64(info.st_dev)), Int64(bitPattern: UInt64(info.st_ino)), Int64(info.st_mode), Int64(info.st_size),
             Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec), Int64(info.st_ctim.tv_sec), Int64(info.st_ctim.tv_nsec)]
        }
        return Fingerprint(root: facts(folder), marker: facts(marker))
    }

    /// The instance the marker in `root` names, or `nil` when there is none or it cannot be read.
    static func instance(in root: String) -> String? {
        guard let text = try? String(contentsOfFile: root + "/" + name, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("instance = ") {
            let value = line.dropFirst("instance = ".count).trimmingCharacters(in: .whitespaces)
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// Writes the marker naming `instance` into `root` (an existing directory) and makes it
    /// durable: a temporary file, flushed, renamed into place, the directory flushed.
    static func write(instance: String, zone: ZoneID, into root: String) throws(SyncError) {
        let text = """
            # docsync: this directory is the synced folder "\(zone.name)". Keep this file.
            # Without it docsyncd takes the folder for an empty mount point or a restored empty
            # home and holds it, instead of deleting its files on your other devices.
            instance = \(instance)

            """
        let target = root + "/" + name
        let temporary = root + "/" + IgnoreRules.temporaryFilePrefix + "root-" + RecordID.newName().suffix(8)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Materializer.failure("write the folder marker", target) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let flushed = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, flushed, rename(temporary, target) == 0 else {
            let failure = Materializer.failure("write the folder marker", target)
            unlink(temporary)
            throw failure
        }
        let directory = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }

    /// True when `root` holds nothing but its marker (stops at the first other entry).
    private static func isEmpty(_ root: String) -> Bool {
        guard let directory = opendir(root) else { return false }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if entryName != "." && entryName != ".." && entryName != name { return false }
        }
        return true
    }
}
