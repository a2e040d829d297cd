import DocSyncCore

extension IndexItem.Pending {
    /// The pending change as the planners name it: nothing to send is `.none`, a save to
    /// send `.edited`, a deletion to send `.deleted`.
    var change: LocalItem.Change {
        switch self {
        case .none: .none
        case .save: .edited
        case .delete: .deleted
        }
    }
}
