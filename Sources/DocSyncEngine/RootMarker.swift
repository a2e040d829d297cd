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
    static func observe(_ root: String, in fs: any FolderFileSystem) -> FolderHold.Root {
        guard let found = fs.statusFollowingLinks(root) else { return .missing }
        guard found.kind == .directory else { return .notADirectory }
        let marker = instance(in: root, fs)
        // Whether it is empty matters only without a marker: the directory is not read otherwise.
        return .directory(marker: marker, isEmpty: marker == nil && isEmpty(root, fs))
    }

    /// The root and its marker as the file system describes them: while they stay the same,
    /// so does what `observe` finds (a look at the root can then be skipped; the marker is
    /// always replaced by a rename, which gives it a new inode). `nil` when either cannot be
    /// looked at.
    struct Fingerprint: Equatable {
        var root: FileStat
        var marker: FileStat
    }

    static func fingerprint(_ root: String, in fs: any FolderFileSystem) -> Fingerprint? {
        guard let folder = fs.statusFollowingLinks(root), let marker = (try? fs.status(root + "/" + name)) ?? nil else { return nil }
        return Fingerprint(root: folder, marker: marker)
    }

    /// The instance the marker in `root` names, or `nil` when there is none or it cannot be read.
    static func instance(in root: String, _ fs: any FolderFileSystem) -> String? {
        guard let data = fs.contents(root + "/" + name), let text = String(validating: data, as: UTF8.self) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("instance = ") {
            let value = line.dropFirst("instance = ".count).trimmingCharacters(in: .whitespaces)
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// Writes the marker naming `instance` into `root` (an existing directory) and makes it
    /// durable: a temporary file, flushed, renamed into place, the directory flushed.
    static func write(instance: String, zone: ZoneID, into root: String, modified: Timestamp, in fs: any FolderFileSystem) throws(SyncError) {
        let text = """
            # docsync: this directory is the synced folder "\(zone.name)". Keep this file.
            # Without it docsyncd takes the folder for an empty mount point or a restored empty
            # home and holds it, instead of deleting its files on your other devices.
            instance = \(instance)

            """
        try Materializer.writeFile(Data(text.utf8), at: root + "/" + name, mode: 0o644, modified: modified, flush: true,
                                   what: "the folder marker", in: fs)
        try? fs.flushDirectory(root)
    }

    /// True when `root` holds nothing but its marker.
    private static func isEmpty(_ root: String, _ fs: any FolderFileSystem) -> Bool {
        guard let names = try? fs.entryNames(root) else { return false }
        return names.allSatisfy { $0 == Array(name.utf8) }
    }
}
