/// Which items a remote folder move carried along must send their new place, once the
/// whole fetch is applied: no I/O, no clock, no database.
///
/// A folder moved on another device moves everything in it here too; each item's own
/// record usually moves as well (the sender sends them with the folder). An item whose own
/// record stayed where it was after the whole fetch — put in the folder on another device
/// after it moved, or not yet moved by a sender whose move spans several batches — is
/// stranded: its new place here is sent, so every device ends with it in the moved folder
/// (a rename both sides agree on is no conflict). An item changed here since, or never
/// acknowledged, is sent anyway; one whose record followed the folder has nothing to send.
public enum StrandedItemsPlanner {
    /// An item the move carried along, as the index has it once the fetch is applied.
    public struct Item: Sendable, Hashable {
        public var recordName: String
        public var change: LocalItem.Change
        public var path: RelativePath
        /// The path of the record the server last acknowledged for it; `nil` when none.
        public var acknowledgedPath: RelativePath?

        public init(recordName: String, change: LocalItem.Change, path: RelativePath, acknowledgedPath: RelativePath?) {
            self.recordName = recordName
            self.change = change
            self.path = path
            self.acknowledgedPath = acknowledgedPath
        }
    }

    /// The names of the stranded items among `carried`, in the order given: each is marked
    /// changed (its new place sent) and remembered as moved by the engine.
    public static func plan(_ carried: [Item]) -> [String] {
        carried.filter { item in
            guard item.change == .none, let acknowledged = item.acknowledgedPath else { return false }
            return acknowledged != item.path
        }.map(\.recordName)
    }
}
