/// A change fetched from the server, one item's worth.
public enum RemoteChange: Sendable, Hashable {
    /// The record was created or changed.
    case saved(Record)
    /// The record named so was deleted.
    case deleted(recordName: String)

    public var recordName: String {
        switch self {
        case .saved(let record): return record.id.recordName
        case .deleted(let name): return name
        }
    }
}
