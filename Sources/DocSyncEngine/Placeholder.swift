import DocSyncCore
import Foundation

/// On-demand placeholders (SPEC §6): a remote document not downloaded yet is shown as
/// `.NAME.docsync` beside where `NAME` would be — a tiny file holding the record name, with
/// the document's modification time. The scanner ignores these names (see `IgnoreRules`);
/// the engine tracks them through index rows whose `downloadingStatus` is `notDownloaded`.
enum Placeholder {
    static let notDownloaded = "notDownloaded"

    /// Where the placeholder of the item at `path` lives, or `nil` when its name would be
    /// too long for the file system (such a document is downloaded instead).
    static func path(for path: RelativePath) -> RelativePath? {
        let name = "." + path.name + IgnoreRules.placeholderSuffix
        guard name.utf8.count <= 255 else { return nil }
        return try? RelativePath(validating: path.parent.map { $0.string + "/" + name } ?? name)
    }

    /// The item a placeholder path stands for, or `nil` when `path` is not a placeholder's.
    static func itemPath(of path: RelativePath) -> RelativePath? {
        let name = path.name
        guard name.hasBytePrefix("."), name.hasByteSuffix(IgnoreRules.placeholderSuffix),
              name.utf8.count > 1 + IgnoreRules.placeholderSuffix.utf8.count else { return nil }
        let itemName = String(decoding: name.utf8.dropFirst().dropLast(IgnoreRules.placeholderSuffix.utf8.count), as: UTF8.self)
        return try? RelativePath(validating: path.parent.map { $0.string + "/" + itemName } ?? itemName)
    }

    /// Writes (or rewrites) the placeholder at `absolute`: the record name, mode 0644, the
    /// item's modification time; through a temporary file and a rename.
    static func write(recordName: String, modified: Timestamp, at absolute: String, in fs: any FolderFileSystem) throws(SyncError) {
        try Materializer.writeFile(Data((recordName + "\n").utf8), at: absolute, mode: 0o644, modified: modified, flush: false,
                                   what: "the placeholder", in: fs)
    }

    /// True when a regular file (a placeholder) is at `absolute`.
    static func exists(at absolute: String, in fs: any FolderFileSystem) -> Bool {
        ((try? fs.status(absolute)) ?? nil)?.kind == .file
    }
}

extension IndexItem {
    /// A remote document shown as a placeholder: its content is not on this device.
    var isPlaceholder: Bool { status.downloadingStatus == Placeholder.notDownloaded }
}
