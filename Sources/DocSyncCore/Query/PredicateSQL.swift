/// Compiles a predicate to an SQLite expression that selects exactly the rows for which
/// `MetadataPredicate.evaluate` is true.
///
/// The columns must hold what the index holds: strings as TEXT (never containing U+0000,
/// BINARY collation), numbers as INTEGER or REAL, booleans as INTEGER 0/1, dates as INTEGER
/// nanoseconds since 1970, and NULL only for the optional attributes. The expression is
/// never NULL (a nil attribute makes a comparison 0, as in the evaluator), so it can be
/// negated safely and combined with other conditions. It calls the functions of
/// `PredicateSQLFunction`, which the connection must have registered, only where SQLite
/// cannot do the same natively: folding for `[c]`/`[d]`, `LIKE` with modifiers, `MATCHES`.
/// Plain `LIKE` becomes `GLOB`, plain comparisons compare columns directly, so SQLite can use
/// indexes on them. The order of the terms of an AND or OR may differ from the predicate's.
public enum PredicateSQL {
    /// The SQL expression of `predicate` and the values of its `?` placeholders, in order.
    /// `columns` gives the SQL (a column name, quoted if needed) of each attribute.
    public static func compile(_ predicate: MetadataPredicate, columns: (MetadataAttribute) -> String)
        -> (sql: String, arguments: [SQLArgument])
    {
        var names: [MetadataAttribute: String] = [:]
        for attribute in MetadataAttribute.allCases { names[attribute] = columns(attribute) }
        var compiler = Compiler(columns: names)
        let sql = compiler.expression(predicate)
        return (sql, compiler.arguments)
    }

    private struct Compiler {
        let columns: [MetadataAttribute: String]
        var arguments: [SQLArgument] = []

        /// SQL for `predicate`, shaped for SQLite's limits: its parser's stack is small (about
        /// 30 nested parentheses) and an expression tree may be at most 1,000 deep.
        /// - Parentheses only where precedence needs them (NOT binds tighter than AND, AND
        ///   tighter than OR).
        /// - Chains flat, the first `chunk` terms bare and the rest in parenthesized chunks of
        ///   `chunk` terms, so a chain of n terms is about n / chunk + chunk deep.
        /// - Compound terms first: while SQLite parses the first term of a chain, no `x AND`
        ///   waits on its stack, so each nested group costs one or two stack entries. (The
        ///   order of terms does not change the result: none has a side effect.)
        /// Measured with SQLite 3.40: the worst nesting overflows the parser's stack near 70
        /// levels and the expression depth near 2,000 comparisons; the parser stops at 50
        /// levels and 1,000 comparisons.
        mutating func expression(_ predicate: MetadataPredicate) -> String {
            switch predicate {
            case .constant(let value): return value ? "1" : "0"
            case .comparison(let comparison): return self.comparison(comparison)
            case .not(let operand):
                switch operand {
                case .and, .or: return "NOT (\(expression(operand)))"
                default: return "NOT \(expression(operand))"
                }
            case .and(let terms): return chain(terms, joiner: "AND", empty: "1")
            case .or(let terms): return chain(terms, joiner: "OR", empty: "0")
            }
        }

        static let chunk = 8

        mutating func chain(_ terms: [MetadataPredicate], joiner: String, empty: String) -> String {
            if terms.isEmpty { return empty }
            let terms = terms.filter(\.isCompound) + terms.filter { !$0.isCompound }
            var parts: [String] = []
            for start in stride(from: 0, to: terms.count, by: Self.chunk) {
                var chunk: [String] = []
                for term in terms[start..<min(start + Self.chunk, terms.count)] {
                    switch term {
                    case .or: chunk.append("(\(expression(term)))")
                    case .and where joiner == "AND": chunk.append("(\(expression(term)))")
                    default: chunk.append(expression(term))
                    }
                }
                let text = chunk.joined(separator: " \(joiner) ")
                parts.append(start == 0 || chunk.count == 1 ? text : "(\(text))")
            }
            return parts.joined(separator: " \(joiner) ")
        }

        mutating func bind(_ value: MetadataValue) -> String {
            arguments.append(SQLArgument(value))
            return "?"
        }

        mutating func comparison(_ comparison: PredicateComparison) -> String {
            let column = columns[comparison.attribute]!
            let flags = comparison.options.flags
            let subject = comparison.options.isEmpty ? column : "\(PredicateSQLFunction.fold.name)(\(column), '\(flags)')"
            let condition: String?
            switch comparison.foldedTest {
            case .compare(.equal, .null): return "(\(column) IS NULL)"
            case .compare(.notEqual, .null): return "(\(column) IS NOT NULL)"
            case let .compare(op, value):
                condition = "\(subject) \(op.sql) \(bind(value))"
            case let .text(op, needle):
                // On the UTF-8 bytes (BLOBs): lengths and offsets in bytes, no NUL surprises.
                let count = needle.utf8.count
                if count == 0 {
                    condition = nil
                } else {
                    let bytes = "CAST(\(subject) AS BLOB)"
                    let literal = "CAST(\(bind(.string(needle))) AS BLOB)"
                    // substr of an empty BLOB is NULL, not an empty BLOB: coalesce keeps it false.
                    switch op {
                    case .beginsWith: condition = "coalesce(substr(\(bytes), 1, \(count)) = \(literal), 0)"
                    case .endsWith: condition = "coalesce(substr(\(bytes), -\(count)) = \(literal), 0)"
                    case .contains: condition = "instr(\(bytes), \(literal)) > 0"
                    }
                }
            case let .like(pattern):
                if let glob = pattern.sqliteGlob {
                    condition = "\(column) GLOB \(bind(.string(glob)))"
                } else {
                    condition = "\(PredicateSQLFunction.like.name)(\(column), \(bind(.string(pattern.pattern))), '\(flags)')"
                }
            case let .matches(pattern):
                condition = "\(PredicateSQLFunction.matches.name)(\(column), \(bind(.string(pattern.pattern))), '\(flags)')"
            case let .oneOf(values):
                if values.isEmpty { return "0" }
                var placeholders: [String] = []
                for value in values { placeholders.append(bind(value)) }
                condition = "\(subject) IN (\(placeholders.joined(separator: ", ")))"
            case let .between(low, high):
                let lowPlaceholder = bind(low)
                condition = "\(subject) BETWEEN \(lowPlaceholder) AND \(bind(high))"
            }
            guard let condition else {
                return comparison.attribute.isOptional ? "(\(column) IS NOT NULL)" : "1"
            }
            // Only the optional attributes' columns can be NULL; the guard keeps the result 0, not NULL.
            return comparison.attribute.isOptional ? "(\(column) IS NOT NULL AND \(condition))" : "(\(condition))"
        }
    }
}

extension MetadataPredicate {
    /// True for the predicates that contain an AND or an OR.
    fileprivate var isCompound: Bool {
        switch self {
        case .constant, .comparison: false
        case .not(let operand): operand.isCompound
        case .and, .or: true
        }
    }
}
