/// A value bound to a `?` of SQL made by `PredicateSQL`: what a database layer turns into its
/// own argument type.
public enum SQLArgument: Hashable, Sendable {
    case text(String)
    case integer(Int64)
    case double(Double)
    case null

    /// The value as the index stores it: booleans as 0/1, dates as nanoseconds since 1970.
    init(_ value: MetadataValue) {
        switch value {
        case .string(let string): self = .text(string)
        case .number(.integer(let integer)): self = .integer(integer)
        case .number(.double(let double)): self = .double(double)
        case .bool(let bool): self = .integer(bool ? 1 : 0)
        case .date(let timestamp): self = .integer(timestamp.nanosecondsSince1970)
        case .null: self = .null
        }
    }
}
