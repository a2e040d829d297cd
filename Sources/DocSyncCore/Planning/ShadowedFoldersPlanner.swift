/// What becomes of folder records waiting for their path, once a fetch is applied: no I/O,
/// no clock, no database.
///
/// Two devices made a folder at one path while apart; this device keeps its own (the
/// smaller record name) and remembers the other record as waiting (`SyncAction.shadow`).
/// The rules, for each waiting record:
/// - it became an item here meanwhile (the index knows its name): it waits no more;
/// - what was remembered of it cannot be read: it is forgotten (a later change of the
///   record brings it again);
/// - no live folder of this device holds its path any more (the kept folder moved or went
///   before the other devices dropped the record): it is placed, as a new remote record,
///   through `RemoteChangePlanner`;
/// - otherwise it keeps waiting.
public enum ShadowedFoldersPlanner {
    /// A folder record waiting for its path, with the facts of the index about it.
    public struct Waiting: Sendable, Hashable {
        public var recordName: String
        /// The record as remembered; `nil` when it cannot be read.
        public var record: Record?
        /// No live folder of the index is at the record's path.
        public var pathFree: Bool
        /// The index has an item of the record's name.
        public var known: Bool

        public init(recordName: String, record: Record?, pathFree: Bool, known: Bool) {
            self.recordName = recordName
            self.record = record
            self.pathFree = pathFree
            self.known = known
        }
    }

    public enum Decision: Sendable, Hashable {
        /// It waits no more, and nothing else is done.
        case forget(recordName: String)
        /// It waits no more, and is applied as a new remote record.
        case place(Record)
    }

    /// The decisions for `waiting`, in its order; a record that keeps waiting has none.
    public static func plan(_ waiting: [Waiting]) -> [Decision] {
        waiting.compactMap { entry in
            guard let record = entry.record, !entry.known else { return .forget(recordName: entry.recordName) }
            return entry.pathFree ? .place(record) : nil
        }
    }
}
