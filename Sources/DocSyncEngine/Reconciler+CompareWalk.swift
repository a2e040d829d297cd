import DocSyncCore
import GRDB

/// Walking part of the folder and comparing it with the index as the walk goes, so that what
/// is unchanged is dropped at once: a scan of a million unchanged files holds one directory
/// listing and one index row at a time, not a million of each.
extension Reconciler {
    /// One examined scope of a comparison: its path (`nil`: the whole folder), whether
    /// everything beneath it was walked, and for a walk compared as it went, the index's live
    /// rows there that it did not find unchanged (`nil`: read them from the index).
    struct Examined {
        var path: RelativePath?
        var walked: Bool
        var rows: [IndexItem.Presence]?
    }

    /// What a walk found that differs from the index, on the index's side.
    struct ComparedWalk {
        /// Live rows at and beneath the start whose item was not found unchanged at its path.
        var rows: [IndexItem.Presence] = []
        /// The walk's problems, unreadable directories and leftovers (no entries).
        var scan = FolderScanner.Result()
    }

    /// Walks `start` (`nil`: the whole folder) beside the index's live rows there, both in
    /// the byte order of their paths, and gives `keep` each found entry that is not an
    /// indexed item, unchanged, at its path. An entry and the one row at its path are left
    /// out together when the row is no placeholder and the entry's facts match it: to
    /// `LocalChangePlanner` such a pair is an unchanged item, which no other found entry or
    /// row can be matched with, so leaving it out changes none of its decisions.
    func compareWalk(_ start: RelativePath?, scanner: FolderScanner, keep: (FolderScanner.Entry) -> Void) throws(SyncError) -> ComparedWalk {
        try readIndex { db in
            var compared = ComparedWalk()
            let rows = try IndexItem.Presence.liveInPathOrder(db, at: start)
            var next = try rows.next()
            compared.scan = try scanner.visit(start) { entry in
                // Rows before the entry's path were not found.
                while let row = next, row.path.precedesInByteOrder(entry.path) {
                    compared.rows.append(row)
                    next = try rows.next()
                }
                var atPath: [IndexItem.Presence] = []
                // Byte for byte, as SQLite compares (`==` on strings is canonical equivalence).
                while let row = next, row.path.string.utf8.elementsEqual(entry.path.string.utf8) {
                    atPath.append(row)
                    next = try rows.next()
                }
                if atPath.count == 1, let row = atPath.first, !row.isPlaceholder, let facts = ItemFacts(entry.stat),
                   facts.type == row.kind, row.facts.matches(facts) {
                    return
                }
                keep(entry)
                compared.rows += atPath
            }
            while let row = next {
                compared.rows.append(row)
                next = try rows.next()
            }
            return compared
        }
    }
}
