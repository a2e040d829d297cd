/// The comparison operators `==`, `!=`, `<`, `<=`, `>`, `>=`.
public enum ComparisonOperator: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="

    /// The operator with its operands swapped: `5 < size` is `size > 5`.
    public var flipped: ComparisonOperator {
        switch self {
        case .equal, .notEqual: self
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        }
    }

    /// True for `<`, `<=`, `>`, `>=` (which need ordered values: not booleans, not nil).
    public var isOrdering: Bool { self != .equal && self != .notEqual }

    /// Whether the operator holds for operands in the order `order` (negative: left is less).
    public func holds(forOrder order: Int) -> Bool {
        switch self {
        case .equal: order == 0
        case .notEqual: order != 0
        case .less: order < 0
        case .lessOrEqual: order <= 0
        case .greater: order > 0
        case .greaterOrEqual: order >= 0
        }
    }

    /// The operator in SQL.
    var sql: String { self == .notEqual ? "<>" : (self == .equal ? "=" : rawValue) }

    public var description: String { rawValue }
}

/// The substring operators `BEGINSWITH`, `ENDSWITH` and `CONTAINS`.
public enum TextOperator: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"

    public var description: String { rawValue }
}
