/// A parsed metadata predicate (SPEC §6), in the manner of `NSPredicate`:
/// `name LIKE[c] '*.pdf' AND size > 10MB AND NOT isUploaded`.
///
/// Make one with `init(parsing:)`; test an item with `evaluate(_:)` (the reference
/// semantics) or run it in SQLite with `PredicateSQL.compile`, which gives the same answers.
/// `and`/`or` hold two or more terms and never directly hold a term of their own kind.
/// `description` writes the predicate back in the language, fully parenthesized where
/// needed; parsing that text gives an equal predicate.
///
/// The name avoids Foundation's `Predicate` (a file importing both would need to qualify it).
public indirect enum MetadataPredicate: Hashable, Sendable, CustomStringConvertible {
    /// `TRUEPREDICATE` or `FALSEPREDICATE`.
    case constant(Bool)
    case comparison(PredicateComparison)
    case not(MetadataPredicate)
    case and([MetadataPredicate])
    case or([MetadataPredicate])

    /// Parses `text`. Keywords are case-insensitive, attribute names are not. Throws a
    /// `MetadataPredicateError` naming the position of the first problem; never traps.
    public init(parsing text: String) throws(MetadataPredicateError) {
        var parser = PredicateParser(text)
        self = try parser.parse()
    }

    public var description: String {
        switch self {
        case .constant(let value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .comparison(let comparison): return comparison.description
        case .not(let operand):
            switch operand {
            case .and, .or: return "NOT (\(operand))"
            default: return "NOT \(operand)"
            }
        case .and(let terms):
            return terms.map { term in
                if case .or = term { return "(\(term))" }
                if case .and = term { return "(\(term))" }
                return term.description
            }.joined(separator: " AND ")
        case .or(let terms):
            return terms.map { term in
                if case .or = term { return "(\(term))" }
                return term.description
            }.joined(separator: " OR ")
        }
    }
}
