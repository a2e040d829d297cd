/// What becomes of this device's items that a complete fetch from scratch did not account
/// for (SPEC §4a), decided from Recently Deleted alone: no I/O, no clock, no database.
///
/// A fetch from scratch (the first of a joining device, or one after `changeTokenExpired`)
/// sends every live record of the zone; what it did not send is either gone from the server
/// or was never there. The rules:
/// - an acknowledged item whose record Recently Deleted lists was deleted elsewhere while
///   this device was not looking: a remote deletion (the file goes to the version store);
/// - an acknowledged item whose record Recently Deleted does not list (or when the backend
///   keeps no Recently Deleted) was forgotten by the server: it is sent again, as new —
///   local files are never deleted because the server forgot them;
/// - a joining device's new item whose path, kind and content are exactly the last version
///   of a record Recently Deleted lists is that deletion arriving late: the item takes the
///   deleted record as its acknowledged one and the deletion is applied to it (the file goes
///   to the version store, an emptied folder goes, nothing is uploaded). A file that differs
///   from what was deleted is an edit, and edits beat deletions: it stays new and is sent.
///   Of several deleted records at one path, the latest deletion that matches is taken;
///   each deleted record is taken by one item at most.
///
/// Deletions come first, deepest paths first (a folder after what was inside it), then the
/// items sent again, in path order.
public enum UnseenItemsPlanner {
    /// One of this device's items the fetch did not account for.
    public struct Item: Sendable, Hashable {
        public var recordName: String
        /// The server acknowledged a version of it (its record was not sent); otherwise it is
        /// a joining device's new item that no record the fetch sent took up.
        public var acknowledged: Bool
        /// The item as it would be sent: path, kind, and content (a document's digest is
        /// known once read: `contentToRead` names those `plan` needs).
        public var observed: Record

        public init(recordName: String, acknowledged: Bool, observed: Record) {
            self.recordName = recordName
            self.acknowledged = acknowledged
            self.observed = observed
        }
    }

    public enum Decision: Sendable, Hashable {
        /// The item's record was deleted elsewhere: apply the deletion here.
        case deletedElsewhere(recordName: String)
        /// The server forgot the item's record: send the item again, as new.
        case sendAgain(recordName: String)
        /// A joining device's item is `deleted`'s last version, deleted elsewhere: the item
        /// takes `deleted` as its acknowledged record (and its record name), then the
        /// deletion is applied here.
        case deletionArrivedLate(recordName: String, deleted: Record)
    }

    /// The joining items whose content digest `plan` needs and does not have: documents at
    /// the path of a deleted document of the same size.
    public static func contentToRead(_ items: [Item], recentlyDeleted: [Record]) -> [String] {
        var sizes: [RelativePath: Set<Int64>] = [:]
        for record in recentlyDeleted where record.type == .document { sizes[record.path, default: []].insert(record.size) }
        return items.filter { item in
            !item.acknowledged && item.observed.type == .document && item.observed.contentDigest == nil
                && sizes[item.observed.path]?.contains(item.observed.size) == true
        }.map(\.recordName)
    }

    /// The decisions for `items`. `recentlyDeleted` is Recently Deleted's records (last
    /// versions), newest deletion first; `nil` when the backend keeps none.
    public static func plan(_ items: [Item], recentlyDeleted: [Record]?) -> [Decision] {
        let listed = Set((recentlyDeleted ?? []).map(\.id.recordName))
        var atPath: [RelativePath: [Record]] = [:]
        for record in recentlyDeleted ?? [] { atPath[record.path, default: []].append(record) }
        var taken = Set<String>()
        var deletions: [(path: RelativePath, decision: Decision)] = []
        var again: [(path: RelativePath, decision: Decision)] = []
        for item in items.sorted(by: { $0.observed.path < $1.observed.path }) {
            if item.acknowledged {
                if listed.contains(item.recordName) {
                    deletions.append((item.observed.path, .deletedElsewhere(recordName: item.recordName)))
                } else {
                    again.append((item.observed.path, .sendAgain(recordName: item.recordName)))
                }
                continue
            }
            guard let deleted = atPath[item.observed.path]?.first(where: { candidate in
                !taken.contains(candidate.id.recordName) && candidate.id.recordName != item.recordName && isLastVersion(item.observed, of: candidate)
            }) else { continue }
            taken.insert(deleted.id.recordName)
            deletions.append((item.observed.path, .deletionArrivedLate(recordName: item.recordName, deleted: deleted)))
        }
        deletions.sort { a, b in a.path.depth != b.path.depth ? a.path.depth > b.path.depth : a.path < b.path }
        return deletions.map(\.decision) + again.map(\.decision)
    }

    /// `observed` is exactly `deleted`'s last version: the same path (bytes), kind and
    /// content (a document's digest, a link's target; a folder has none). Times, modes and
    /// who made it do not count: a backup restored keeps the bytes, not always the rest.
    static func isLastVersion(_ observed: Record, of deleted: Record) -> Bool {
        guard observed.path == deleted.path, observed.type == deleted.type else { return false }
        switch observed.type {
        case .folder: return true
        case .document: return observed.contentDigest != nil && observed.contentDigest == deleted.contentDigest
        case .symlink: return observed.symlinkTarget.bytesEqual(deleted.symlinkTarget)
        case .value: return observed.value.bytesEqual(deleted.value)
        case .sealed: return observed.sealed == deleted.sealed  // the engine compares opened records
        }
    }
}
