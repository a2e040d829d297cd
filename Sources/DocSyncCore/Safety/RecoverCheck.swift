/// Whether a path named for recovery (`docs-status recover PATH`, SPEC §4a) has anything in
/// Recently Deleted, and if not, why — pure, so every case is a line of a table.
///
/// A named path matches every deleted record whose last path is it or lies beneath it. One
/// that matches nothing is no such item (the caller fails with `notFound`, exit 4), told
/// apart by what this device knows: an item it saw deleted there (its version store keeps
/// the copy the deletion took) was purged from Recently Deleted or outlived its retention;
/// an item living there was never deleted; anything else is unknown here.
public enum RecoverCheck {
    /// What is known of the named path.
    public struct Facts: Hashable, Sendable {
        /// Recently Deleted holds a record at or beneath the path.
        public var inRecentlyDeleted: Bool
        /// This device's version store keeps a copy of an item deleted at or beneath the path.
        public var deletedCopyKeptHere: Bool
        /// A live item of the folder is at the path.
        public var livesHere: Bool

        public init(inRecentlyDeleted: Bool, deletedCopyKeptHere: Bool = false, livesHere: Bool = false) {
            self.inRecentlyDeleted = inRecentlyDeleted
            self.deletedCopyKeptHere = deletedCopyKeptHere
            self.livesHere = livesHere
        }
    }

    public enum Verdict: Hashable, Sendable {
        /// Recently Deleted has something there: recover it.
        case recoverable
        /// Deleted, and gone from Recently Deleted since (purged, or past its retention).
        case purged
        /// It lives in the folder, and nothing deleted there is kept.
        case notDeleted
        /// Nothing known was ever deleted there.
        case noSuchItem

        /// What a person is told about `shown` (the path as they know it: `FOLDER/PATH`);
        /// `nil` for `recoverable`.
        public func message(for shown: String) -> String? {
            switch self {
            case .recoverable: nil
            case .purged: "\(shown) was deleted and is no longer in Recently Deleted (purged, or kept past its retention), so it cannot be recovered from the backend; this device kept a copy when it was deleted: see docs-status versions"
            case .notDeleted: "\(shown) is not deleted: it is in the folder, and nothing deleted there is in Recently Deleted"
            case .noSuchItem: "no such item in Recently Deleted: \(shown)"
            }
        }
    }

    public static func verdict(_ facts: Facts) -> Verdict {
        if facts.inRecentlyDeleted { return .recoverable }
        if facts.deletedCopyKeptHere { return .purged }
        if facts.livesHere { return .notDeleted }
        return .noSuchItem
    }
}
