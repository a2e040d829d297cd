import DocSyncCore
import Foundation

/// On-demand placeholders (SPEC §6): a remote document not downloaded yet is shown as
/// `.NAME.docsync` beside where `NAME` would be — an empty file of the document's size (a
/// hole), mode and modification time. The scanner ignores these names (see `IgnoreRules`);
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

    /// Writes (or rewrites) the placeholder at `absolute`: a file as long as the document
    /// (`size`, all of it a hole: it takes no space), with the document's mode and
    /// modification time, so that its status is the document's (the on-demand mount shows
    /// it as the document: SPEC §14); through a temporary file and a rename.
    static func write(size: Int64, mode: UInt32, modified: Timestamp, at absolute: String, in fs: any FolderFileSystem) throws(SyncError) {
        let (file, temporary) = try Materializer.createTemporary(beside: absolute, size: 0, in: fs)
        defer { file.close() }
        do throws(FileSystemError) {
            try file.extend(to: size)
            try file.finish(mode: mode, modified: modified, flush: false)
            file.close()
            try fs.rename(temporary, to: absolute)
        } catch {
            try? fs.removeFile(temporary)
            throw Materializer.failure("write the placeholder", absolute, error)
        }
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
