/// One comparison of a predicate: an attribute, what it is tested against, and the `[c]`/`[d]`
/// modifiers (string attributes only).
///
/// Comparisons are made by parsing (`MetadataPredicate(parsing:)`), which has checked that
/// the test fits the attribute's type: ordering operators and `BETWEEN` only for strings,
/// numbers and dates; the text operators, `LIKE` and `MATCHES` only for strings; nil only
/// with `==`/`!=`; modifiers only on string attributes. Values have the attribute's type
/// (a number compared with a percentage is a `Double`).
public struct PredicateComparison: Hashable, Sendable, CustomStringConvertible {
    /// What the attribute's value is tested against.
    public enum Test: Hashable, Sendable {
        /// `==`, `!=`, `<`, `<=`, `>`, `>=` with a value; with `.null` only `==` and `!=`.
        case compare(ComparisonOperator, MetadataValue)
        /// `BEGINSWITH`, `ENDSWITH`, `CONTAINS` with a string.
        case text(TextOperator, String)
        case like(LikePattern)
        case matches(RegexPattern)
        /// `IN {…}` (never `.null` among the values).
        case oneOf([MetadataValue])
        /// `BETWEEN {low, high}`, both ends included.
        case between(MetadataValue, MetadataValue)

        public static func == (lhs: Test, rhs: Test) -> Bool {
            switch (lhs, rhs) {
            case let (.compare(a, x), .compare(b, y)): a == b && x == y
            case let (.text(a, x), .text(b, y)): a == b && x.utf8.elementsEqual(y.utf8)
            case let (.like(a), .like(b)): a == b
            case let (.matches(a), .matches(b)): a == b
            case let (.oneOf(a), .oneOf(b)): a == b
            case let (.between(a, x), .between(b, y)): a == b && x == y
            default: false
            }
        }

        public func hash(into hasher: inout Hasher) {
            switch self {
            case let .compare(op, value):
                hasher.combine(0)
                hasher.combine(op)
                hasher.combine(value)
            case let .text(op, string):
                hasher.combine(1)
                hasher.combine(op)
                for byte in string.utf8 { hasher.combine(byte) }
            case let .like(pattern):
                hasher.combine(2)
                hasher.combine(pattern)
            case let .matches(pattern):
                hasher.combine(3)
                hasher.combine(pattern)
            case let .oneOf(values):
                hasher.combine(4)
                hasher.combine(values)
            case let .between(low, high):
                hasher.combine(5)
                hasher.combine(low)
                hasher.combine(high)
            }
        }

        /// The test with every string value folded by `options` (patterns fold themselves).
        func folded(_ options: ComparisonOptions) -> Test {
            guard !options.isEmpty else { return self }
            func fold(_ value: MetadataValue) -> MetadataValue {
                if case .string(let string) = value { return .string(TextFolding.fold(string, options)) }
                return value
            }
            switch self {
            case let .compare(op, value): return .compare(op, fold(value))
            case let .text(op, string): return .text(op, TextFolding.fold(string, options))
            case .like, .matches: return self
            case let .oneOf(values): return .oneOf(values.map(fold))
            case let .between(low, high): return .between(fold(low), fold(high))
            }
        }
    }

    public let attribute: MetadataAttribute
    public let test: Test
    public let options: ComparisonOptions
    /// `test` with its strings folded by `options`: what the values are compared with.
    let foldedTest: Test

    init(_ attribute: MetadataAttribute, _ test: Test, options: ComparisonOptions = []) {
        self.attribute = attribute
        self.test = test
        self.options = options
        foldedTest = test.folded(options)
    }

    public static func == (lhs: PredicateComparison, rhs: PredicateComparison) -> Bool {
        lhs.attribute == rhs.attribute && lhs.test == rhs.test && lhs.options == rhs.options
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(attribute)
        hasher.combine(test)
        hasher.combine(options)
    }

    /// The comparison in the predicate language, e.g. `name LIKE[c] "*.pdf"`.
    public var description: String {
        let modifier = options.description
        switch test {
        case let .compare(op, value): return "\(attribute) \(op)\(modifier) \(value)"
        case let .text(op, string): return "\(attribute) \(op)\(modifier) \(PredicateLiteral.quoted(string))"
        case let .like(pattern): return "\(attribute) LIKE\(modifier) \(pattern)"
        case let .matches(pattern): return "\(attribute) MATCHES\(modifier) \(pattern)"
        case let .oneOf(values): return "\(attribute) IN\(modifier) {\(values.map(\.description).joined(separator: ", "))}"
        case let .between(low, high): return "\(attribute) BETWEEN\(modifier) {\(low), \(high)}"
        }
    }
}
