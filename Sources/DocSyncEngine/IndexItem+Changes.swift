import DocSyncCore
import GRDB

/// A row changed here, and the conflict flags kept true to the copies beside an item.
extension IndexItem {
    /// Changed here: to be saved (the next revision), with no upload error, not uploaded.
    mutating func markChanged() {
        pending = .save
        revision += 1
        status.uploadingError = nil
        status.isUploaded = false
    }
}

extension Database {
    /// Keeps `hasUnresolvedConflicts` true exactly on items with a conflict copy beside them,
    /// for the originals of the conflict copies among `paths` (appearing, moving, leaving).
    func refreshConflictFlags(around paths: [RelativePath]) throws {
        for path in paths {
            guard let name = ConflictName.originalName(of: path.name),
                  let original = try? (path.parent.map { $0.string + "/" + name } ?? name).asRelativePath(),
                  var row = try item(at: original) else { continue }
            let hasCopy = try !conflictCopies(of: original).isEmpty
            if row.status.hasUnresolvedConflicts != hasCopy {
                row.status.hasUnresolvedConflicts = hasCopy
                try row.update(self)
            }
        }
    }
}
