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
    ///
    /// `indexedExtensions` names the attributes whose extension (`nameExtension(of:)` of their
    /// column) an index holds: a `LIKE` or `ENDSWITH` that fixes the extension (`*.jpg`) also
    /// compares it, which that index answers without reading every row.
    public static func compile(_ predicate: MetadataPredicate, indexedExtensions: Set<MetadataAttribute> = [],
                               columns: (MetadataAttribute) -> String)
        -> (sql: String, arguments: [SQLArgument])
    {
        var names: [MetadataAttribute: String] = [:]
        for attribute in MetadataAttribute.allCases { names[attribute] = columns(attribute) }
        var compiler = Compiler(columns: names, indexedExtensions: indexedExtensions)
        let sql = compiler.expression(predicate)
        return (sql, compiler.arguments)
    }

    /// The SQL of the extension of a text `column`: what follows its last `.`, or the whole
    /// text when it has none (built-in functions only, so an index may hold it). An index
    /// on it must spell it exactly so for SQLite to use it.
    public static func nameExtension(of column: String) -> String {
        "substr(\(column), length(rtrim(\(column), replace(\(column), '.', ''))) + 1)"
    }

    private struct Compiler {
        let columns: [MetadataAttribute: String]
        let indexedExtensions: Set<MetadataAttribute>
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

        /// `ext = ? AND ` when `attribute`'s extension is indexed and `fixed` is known: a
        /// condition the comparison implies, there for the index. Empty otherwise.
        mutating func extensionTest(_ attribute: MetadataAttribute, _ fixed: String?) -> String {
            guard let fixed, indexedExtensions.contains(attribute), let column = columns[attribute] else { return "" }
            return "\(PredicateSQL.nameExtension(of: column)) = \(bind(.string(fixed))) AND "
        }

        /// The extension of every text ending with `suffix`, when the suffix fixes it (it
        /// holds a `.` with something after the last one).
        static func fixedExtension(ofSuffix suffix: String) -> String? {
            guard let dot = suffix.unicodeScalars.lastIndex(of: ".") else { return nil }
            let tail = String(suffix.unicodeScalars[suffix.unicodeScalars.index(after: dot)...])
            return tail.isEmpty ? nil : tail
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
                    // Bound first: it comes first in the text.
                    let known = op == .endsWith && comparison.options.isEmpty
                        ? extensionTest(comparison.attribute, Self.fixedExtension(ofSuffix: needle)) : ""
                    let literal = "CAST(\(bind(.string(needle))) AS BLOB)"
                    // substr of an empty BLOB is NULL, not an empty BLOB: coalesce keeps it false.
                    switch op {
                    case .beginsWith: condition = "coalesce(substr(\(bytes), 1, \(count)) = \(literal), 0)"
                    case .endsWith: condition = known + "coalesce(substr(\(bytes), -\(count)) = \(literal), 0)"
                    case .contains: condition = "instr(\(bytes), \(literal)) > 0"
                    }
                }
            case let .like(pattern):
                if let glob = pattern.sqliteGlob {
                    condition = extensionTest(comparison.attribute, pattern.fixedExtension) + "\(column) GLOB \(bind(.string(glob)))"
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
