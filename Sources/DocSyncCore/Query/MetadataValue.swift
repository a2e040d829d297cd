/// The value of one attribute of one item, or a literal in a predicate.
///
/// Strings are compared by their Unicode scalars (equivalently, their UTF-8 bytes), as
/// SQLite's binary collation does, never with Swift's canonical equivalence: `"é"` (one
/// scalar) and `"e\u{301}"` (two) are different strings unless a `[d]` modifier folds both.
public enum MetadataValue: Hashable, Sendable, CustomStringConvertible {
    case string(String)
    case number(MetadataNumber)
    case bool(Bool)
    /// A date, as whole nanoseconds since 1970-01-01T00:00:00Z.
    case date(Timestamp)
    /// No value (nil): only the optional attributes have it.
    case null

    /// A whole number.
    public static func integer(_ value: Int64) -> MetadataValue { .number(.integer(value)) }
    /// A fractional number.
    public static func double(_ value: Double) -> MetadataValue { .number(.double(value)) }

    /// The type of the value, or `nil` for `.null`.
    public var type: MetadataAttribute.ValueType? {
        switch self {
        case .string: .string
        case .number: .number
        case .bool: .bool
        case .date: .date
        case .null: nil
        }
    }

    /// The value as the predicate language writes it: strings in double quotes with
    /// backslash escapes, dates in ISO 8601 (UTC), `true`/`false`, `nil`. Parsing the text
    /// gives back the same value.
    public var description: String {
        switch self {
        case .string(let string): PredicateLiteral.quoted(string)
        case .number(let number): number.description
        case .bool(let bool): bool ? "true" : "false"
        case .date(let timestamp): ISO8601Timestamp.format(timestamp)
        case .null: "nil"
        }
    }

    /// Equal values of the same case; strings are equal when their Unicode scalars are.
    public static func == (lhs: MetadataValue, rhs: MetadataValue) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): a.utf8.elementsEqual(b.utf8)
        case let (.number(a), .number(b)): a == b
        case let (.bool(a), .bool(b)): a == b
        case let (.date(a), .date(b)): a == b
        case (.null, .null): true
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .string(let string):
            hasher.combine(0)
            for byte in string.utf8 { hasher.combine(byte) }
        case .number(let number):
            hasher.combine(1)
            hasher.combine(number)
        case .bool(let bool):
            hasher.combine(2)
            hasher.combine(bool)
        case .date(let timestamp):
            hasher.combine(3)
            hasher.combine(timestamp)
        case .null:
            hasher.combine(4)
        }
    }
}
