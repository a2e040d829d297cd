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
/// indexes on them.
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

        mutating func expression(_ predicate: MetadataPredicate) -> String {
            switch predicate {
            case .constant(let value): return value ? "1" : "0"
            case .comparison(let comparison): return self.comparison(comparison)
            case .not(let operand): return "NOT \(expression(operand))"
            case .and(let terms): return balanced(terms[...], joiner: "AND", empty: "1")
            case .or(let terms): return balanced(terms[...], joiner: "OR", empty: "0")
            }
        }

        /// `terms` joined as a balanced tree, so that long chains stay shallow (SQLite limits
        /// an expression's depth).
        mutating func balanced(_ terms: ArraySlice<MetadataPredicate>, joiner: String, empty: String) -> String {
            switch terms.count {
            case 0: return empty
            case 1: return expression(terms[terms.startIndex])
            default:
                let middle = terms.startIndex + terms.count / 2
                let left = balanced(terms[..<middle], joiner: joiner, empty: empty)
                let right = balanced(terms[middle...], joiner: joiner, empty: empty)
                return "(\(left) \(joiner) \(right))"
            }
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
                    switch op {
                    case .beginsWith: condition = "substr(\(bytes), 1, \(count)) = \(literal)"
                    case .endsWith: condition = "substr(\(bytes), -\(count)) = \(literal)"
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
