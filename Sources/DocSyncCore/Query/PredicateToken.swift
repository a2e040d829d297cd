/// One token of a predicate's text, with where it lies (offsets in Unicode scalars).
struct PredicateToken: Sendable {
    enum Kind: Sendable {
        case identifier(String)
        case string(String)
        case number(MetadataNumber)
        /// A number with a size unit (`10MB`), in bytes.
        case size(MetadataNumber)
        case date(Timestamp)
        case bool(Bool)
        /// `nil` or `NULL`.
        case null
        /// `TRUEPREDICATE` or `FALSEPREDICATE`.
        case constant(Bool)
        case comparison(ComparisonOperator)
        case text(TextOperator)
        case like, matches, `in`, between
        case and, or, not
        case leftParen, rightParen, leftBrace, rightBrace, comma
        /// `[c]`, `[d]`, `[cd]`.
        case modifier(ComparisonOptions)
        case end
    }

    let kind: Kind
    /// Offset of the first scalar (for `.end`: just after the last token).
    let start: Int
    /// Offset just after the last scalar.
    let end: Int
    /// The token as written.
    let text: String

    /// True for tokens that are values (literals).
    var isValue: Bool {
        switch kind {
        case .string, .number, .size, .date, .bool, .null: true
        default: false
        }
    }

    var isEnd: Bool {
        if case .end = kind { return true }
        return false
    }

    /// The token as error messages name it: `string 'abc'`, `number 5`, `'AND'`, or `the end
    /// of the query`.
    var found: String {
        switch kind {
        case .end: "the end of the query"
        case .string: "string \(text)"
        case .number: "number \(text)"
        case .size: "size \(text)"
        case .date: "date \(text)"
        case .identifier: "'\(text)'"
        default: "'\(text)'"
        }
    }
}
