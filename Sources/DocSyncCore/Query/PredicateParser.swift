/// The recursive-descent parser of the predicate language, with its type checks.
///
/// Grammar (keywords case-insensitive):
///
///     predicate  := and ( (OR | ||) and )*
///     and        := not ( (AND | &&) not )*
///     not        := (NOT | !) not | primary
///     primary    := '(' predicate ')' | TRUEPREDICATE | FALSEPREDICATE | comparison
///     comparison := attribute operator modifier? operand
///                 | value comparisonOperator modifier? attribute
///                 | booleanAttribute
///     operator   := == | = | != | <> | < | <= | =< | > | >= | => | BEGINSWITH | ENDSWITH
///                 | CONTAINS | LIKE | MATCHES | IN | BETWEEN
///     operand    := value | '{' (value (',' value)*)? '}'
///
/// Nesting (parentheses and NOT) is limited to `maximumDepth` levels, comparisons to
/// `maximumComparisons` and values to `maximumValues`, so that neither the evaluator's
/// recursion nor SQLite's parser stack, expression depth and variable count can overflow
/// (see `PredicateSQL`).
struct PredicateParser {
    static let maximumDepth = 50
    static let maximumComparisons = 1_000
    static let maximumValues = 10_000

    private var tokenizer: PredicateTokenizer
    private var current = PredicateToken(kind: .end, start: 0, end: 0, text: "")
    private var depth = 0
    private var values = 0
    private var comparisons = 0

    init(_ text: String) { tokenizer = PredicateTokenizer(text) }

    private func error(_ kind: MetadataPredicateError.Kind, at token: PredicateToken, _ message: String) -> MetadataPredicateError {
        tokenizer.error(kind, at: token.start, message)
    }

    /// `message`, followed by what was found instead unless that is the end of the query.
    private func expected(_ message: String, found token: PredicateToken, kind: MetadataPredicateError.Kind = .syntax) -> MetadataPredicateError {
        error(kind, at: token, token.isEnd ? message : "\(message), found \(token.found)")
    }

    @discardableResult
    private mutating func advance() throws(MetadataPredicateError) -> PredicateToken {
        let token = current
        current = try tokenizer.next()
        return token
    }

    mutating func parse() throws(MetadataPredicateError) -> MetadataPredicate {
        current = try tokenizer.next()
        if current.isEnd {
            throw error(.syntax, at: current, "empty predicate (write a comparison such as name LIKE '*.pdf', or TRUEPREDICATE)")
        }
        let predicate = try parseOr(after: nil)
        switch current.kind {
        case .end: return predicate
        case .rightParen: throw error(.syntax, at: current, "unexpected ')' with no '(' to close")
        case .identifier(let word) where ["b", "kb", "mb", "gb", "tb", "kib", "mib", "gib", "tib"].contains(word.lowercased()):
            throw expected("expected AND, OR or the end of the query (write sizes without a space, like 10MB)", found: current)
        default: throw expected("expected AND, OR or the end of the query", found: current)
        }
    }

    private mutating func parseOr(after previous: PredicateToken?) throws(MetadataPredicateError) -> MetadataPredicate {
        var terms = [try parseAnd(after: previous)]
        while case .or = current.kind {
            let keyword = try advance()
            terms.append(try parseAnd(after: keyword))
        }
        if terms.count == 1 { return terms[0] }
        return .or(terms.flatMap { term -> [MetadataPredicate] in
            if case .or(let inner) = term { return inner }
            return [term]
        })
    }

    private mutating func parseAnd(after previous: PredicateToken?) throws(MetadataPredicateError) -> MetadataPredicate {
        var terms = [try parseNot(after: previous)]
        while case .and = current.kind {
            let keyword = try advance()
            terms.append(try parseNot(after: keyword))
        }
        if terms.count == 1 { return terms[0] }
        return .and(terms.flatMap { term -> [MetadataPredicate] in
            if case .and(let inner) = term { return inner }
            return [term]
        })
    }

    private mutating func enter() throws(MetadataPredicateError) {
        depth += 1
        if depth > Self.maximumDepth {
            throw error(.tooComplex, at: current, "the predicate nests parentheses and NOT more than \(Self.maximumDepth) levels deep")
        }
    }

    private mutating func parseNot(after previous: PredicateToken?) throws(MetadataPredicateError) -> MetadataPredicate {
        guard case .not = current.kind else { return try parsePrimary(after: previous) }
        let keyword = try advance()
        try enter()
        let operand = try parseNot(after: keyword)
        depth -= 1
        return .not(operand)
    }

    private mutating func parsePrimary(after previous: PredicateToken?) throws(MetadataPredicateError) -> MetadataPredicate {
        if case .leftParen = current.kind {} else {
            comparisons += 1
            if comparisons > Self.maximumComparisons {
                throw error(.tooComplex, at: current, "the predicate has more than \(Self.maximumComparisons) comparisons")
            }
        }
        switch current.kind {
        case .leftParen:
            let open = try advance()
            try enter()
            let inner = try parseOr(after: open)
            depth -= 1
            guard case .rightParen = current.kind else {
                throw expected("expected ')' to close the '(' at position \(tokenizer.position(of: open.start))", found: current)
            }
            try advance()
            return inner
        case .constant(let value):
            try advance()
            return .constant(value)
        case .identifier:
            return try parseComparisonFromAttribute()
        default:
            if current.isValue { return try parseComparisonFromValue() }
            let context = previous.map { " after '\($0.text)'" } ?? ""
            throw expected("expected a comparison, NOT or '('\(context)", found: current)
        }
    }

    // MARK: comparisons

    private enum Operator {
        case compare(ComparisonOperator), text(TextOperator), like, matches, oneOf, between

        init?(_ kind: PredicateToken.Kind) {
            switch kind {
            case .comparison(let op): self = .compare(op)
            case .text(let op): self = .text(op)
            case .like: self = .like
            case .matches: self = .matches
            case .in: self = .oneOf
            case .between: self = .between
            default: return nil
            }
        }
    }

    private func attribute(_ token: PredicateToken) throws(MetadataPredicateError) -> MetadataAttribute {
        guard case .identifier(let name) = token.kind else {
            preconditionFailure("attribute(_:) takes an identifier token")
        }
        if let attribute = MetadataAttribute(rawValue: name) { return attribute }
        if let suggestion = Self.suggestion(for: name) {
            throw error(.unknownAttribute, at: token, "unknown attribute '\(name)' (did you mean '\(suggestion)'?)")
        }
        let all = MetadataAttribute.allCases.map(\.rawValue).joined(separator: ", ")
        throw error(.unknownAttribute, at: token, "unknown attribute '\(name)' (the attributes are \(all))")
    }

    /// The attribute `name` was probably meant to be: the same but for case, or one at most
    /// two edits away.
    static func suggestion(for name: String) -> String? {
        let lowered = name.lowercased()
        if let attribute = MetadataAttribute.allCases.first(where: { $0.rawValue.lowercased() == lowered }) {
            return attribute.rawValue
        }
        guard name.count <= 40 else { return nil }
        let candidates = MetadataAttribute.allCases.map { ($0.rawValue, editDistance(lowered, $0.rawValue.lowercased())) }
        guard let best = candidates.min(by: { $0.1 < $1.1 }), best.1 <= 2 else { return nil }
        return best.0
    }

    /// Levenshtein distance between two strings, by Characters.
    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var diagonal = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let above = row[j]
                row[j] = min(above + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1))
                diagonal = above
            }
        }
        return row[b.count]
    }

    private static func operatorList(for type: MetadataAttribute.ValueType) -> String {
        switch type {
        case .string: "==, !=, <, <=, >, >=, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES, IN or BETWEEN"
        case .number, .date: "==, !=, <, <=, >, >=, IN or BETWEEN"
        case .bool: "==, != or IN"
        }
    }

    /// Refuses an operator that does not apply to `attribute`'s type.
    private func check(_ op: Operator, _ token: PredicateToken, for attribute: MetadataAttribute) throws(MetadataPredicateError) {
        let applies: Bool
        switch op {
        case .compare(let comparison): applies = !(comparison.isOrdering && attribute.type == .bool)
        case .text, .like, .matches: applies = attribute.type == .string
        case .oneOf: applies = true
        case .between: applies = attribute.type != .bool
        }
        guard !applies else { return }
        throw error(.typeMismatch, at: token, "operator '\(token.text)' does not apply to attribute '\(attribute)' "
            + "(\(attribute.type.phrase)): use \(Self.operatorList(for: attribute.type))")
    }

    /// Reads a modifier, if one follows, and checks that `attribute` is a string.
    private mutating func modifier(for attribute: MetadataAttribute?) throws(MetadataPredicateError) -> (ComparisonOptions, PredicateToken?) {
        guard case .modifier(let options) = current.kind else { return ([], nil) }
        let token = try advance()
        if let attribute, attribute.type != .string {
            throw error(.typeMismatch, at: token, "modifier '\(token.text)' applies only to string attributes; "
                + "'\(attribute)' is \(attribute.type.phrase)")
        }
        return (options, token)
    }

    private mutating func parseComparisonFromAttribute() throws(MetadataPredicateError) -> MetadataPredicate {
        let attributeToken = try advance()
        let attribute = try attribute(attributeToken)
        if attribute.type == .bool {
            switch current.kind {
            case .and, .or, .rightParen, .end: return .comparison(PredicateComparison(attribute, .compare(.equal, .bool(true))))
            default: break
            }
        }
        guard let op = Operator(current.kind) else {
            throw expected("expected an operator after attribute '\(attribute)' (\(Self.operatorList(for: attribute.type)))", found: current)
        }
        let operatorToken = try advance()
        try check(op, operatorToken, for: attribute)
        let (options, _) = try modifier(for: attribute)
        let after = "after '\(operatorToken.text)'"
        let test: PredicateComparison.Test
        switch op {
        case .compare(let comparison):
            let value = try value(for: attribute, context: after, nilAllowed: !comparison.isOrdering)
            test = .compare(comparison, value)
        case .text(let textOperator):
            let (string, _) = try string(for: attribute, context: after)
            test = .text(textOperator, string)
        case .like:
            let (pattern, token) = try string(for: attribute, context: after)
            do {
                test = .like(try LikePattern(pattern, options: options))
            } catch {
                throw self.error(.invalidPattern, at: token, "LIKE pattern \(token.text) ends with a '\\' that escapes nothing "
                    + "(write \\\\\\\\ in the string for a literal backslash)")
            }
        case .matches:
            let (pattern, token) = try string(for: attribute, context: after)
            do {
                test = .matches(try RegexPattern(pattern, options: options))
            } catch {
                throw self.error(.invalidPattern, at: token, "MATCHES pattern \(token.text) cannot be used: \(error.reason)")
            }
        case .oneOf:
            test = .oneOf(try list(for: attribute, keyword: operatorToken))
        case .between:
            test = try between(for: attribute, keyword: operatorToken)
        }
        return .comparison(PredicateComparison(attribute, test, options: options))
    }

    /// `value comparisonOperator attribute`, turned around: `5MB < size` is `size > 5MB`.
    private mutating func parseComparisonFromValue() throws(MetadataPredicateError) -> MetadataPredicate {
        let valueToken = try advance()
        guard case .comparison(let comparison) = current.kind else {
            if Operator(current.kind) != nil {
                throw error(.syntax, at: current, "'\(current.text)' needs the attribute on its left "
                    + "(write: attribute \(current.text) \(valueToken.text))")
            }
            throw expected("expected a comparison operator after the value \(valueToken.text) "
                + "(a value on the left is compared with an attribute on the right)", found: current)
        }
        let operatorToken = try advance()
        let (options, modifierToken) = try modifier(for: nil)
        guard case .identifier = current.kind else {
            throw expected("expected an attribute after '\(operatorToken.text)' (a value on the left is compared with an attribute)",
                           found: current)
        }
        let attributeToken = try advance()
        let attribute = try attribute(attributeToken)
        try check(.compare(comparison), operatorToken, for: attribute)
        if let modifierToken, attribute.type != .string {
            throw error(.typeMismatch, at: modifierToken, "modifier '\(modifierToken.text)' applies only to string attributes; "
                + "'\(attribute)' is \(attribute.type.phrase)")
        }
        let value = try convert(valueToken, for: attribute, context: "before '\(operatorToken.text)'",
                                nilAllowed: !comparison.isOrdering)
        return .comparison(PredicateComparison(attribute, .compare(comparison.flipped, value), options: options))
    }

    // MARK: operands

    /// Reads one value for `attribute`.
    private mutating func value(for attribute: MetadataAttribute, context: String, nilAllowed: Bool,
                                inList: Bool = false) throws(MetadataPredicateError) -> MetadataValue {
        let value = try convert(current, for: attribute, context: context, nilAllowed: nilAllowed, inList: inList)
        try advance()
        return value
    }

    /// Reads a string operand (of BEGINSWITH, LIKE…), with its token.
    private mutating func string(for attribute: MetadataAttribute, context: String) throws(MetadataPredicateError) -> (String, PredicateToken) {
        let token = current
        guard case .string(let string) = try value(for: attribute, context: context, nilAllowed: false) else {
            preconditionFailure("a string attribute's value is a string")
        }
        return (string, token)
    }

    /// The value `token` stands for, as a value of `attribute`'s type, or an error saying
    /// what was expected.
    private mutating func convert(_ token: PredicateToken, for attribute: MetadataAttribute, context: String,
                                  nilAllowed: Bool, inList: Bool = false) throws(MetadataPredicateError) -> MetadataValue {
        let expectation = "expected a value \(context) for attribute '\(attribute)' (\(attribute.expectedValue))"
        func mismatch(_ note: String = "") -> MetadataPredicateError {
            error(.typeMismatch, at: token, "\(expectation), found \(token.found)\(note)")
        }
        let value: MetadataValue
        switch token.kind {
        case .string(let string):
            switch attribute.type {
            case .string: value = .string(string)
            case .date:
                do {
                    value = .date(try ISO8601Timestamp.parse(string))
                } catch {
                    throw self.error(.invalidLiteral, at: token, "invalid date \(token.text) for attribute '\(attribute)': \(error.reason)")
                }
            default: throw mismatch()
            }
        case .number(let number), .size(let number):
            guard attribute.type == .number else { throw mismatch() }
            if case .size = token.kind, attribute != .size { throw mismatch(" (sizes are for attribute 'size')") }
            value = attribute.isFractional ? .double(number.doubleValue) : .number(number)
        case .date(let timestamp):
            guard attribute.type == .date else { throw mismatch() }
            value = .date(timestamp)
        case .bool(let bool):
            guard attribute.type == .bool else { throw mismatch() }
            value = .bool(bool)
        case .null:
            guard nilAllowed else {
                if inList {
                    throw error(.typeMismatch, at: token, "nil cannot be in a list (write \(attribute) == nil)")
                }
                throw error(.typeMismatch, at: token, "nil can only be compared with == or !=")
            }
            value = .null
        case .identifier(let name):
            if MetadataAttribute(rawValue: name) != nil {
                throw mismatch(" (comparing two attributes is not supported)")
            }
            throw mismatch(attribute.type == .string ? " (put strings in quotes)" : "")
        default:
            throw expected(expectation, found: token)
        }
        values += 1
        if values > Self.maximumValues {
            throw error(.tooComplex, at: token, "the predicate has more than \(Self.maximumValues) values")
        }
        return value
    }

    /// `{a, b, …}` after IN (possibly empty).
    private mutating func list(for attribute: MetadataAttribute, keyword: PredicateToken) throws(MetadataPredicateError) -> [MetadataValue] {
        guard case .leftBrace = current.kind else {
            throw expected("expected '{' after '\(keyword.text)' for attribute '\(attribute)' (a list of values like {1, 2} or {})",
                           found: current)
        }
        try advance()
        var values: [MetadataValue] = []
        if case .rightBrace = current.kind {
            try advance()
            return values
        }
        while true {
            values.append(try value(for: attribute, context: "in the list after '\(keyword.text)'", nilAllowed: false, inList: true))
            switch current.kind {
            case .comma: try advance()
            case .rightBrace:
                try advance()
                return values
            default: throw expected("expected ',' or '}' in the list after '\(keyword.text)'", found: current)
            }
        }
    }

    /// `{low, high}` after BETWEEN.
    private mutating func between(for attribute: MetadataAttribute, keyword: PredicateToken) throws(MetadataPredicateError) -> PredicateComparison.Test {
        guard case .leftBrace = current.kind else {
            throw expected("expected '{' after '\(keyword.text)' for attribute '\(attribute)' (two values like {1, 10})",
                           found: current)
        }
        try advance()
        let low = try value(for: attribute, context: "as the lower bound of '\(keyword.text)'", nilAllowed: false)
        guard case .comma = current.kind else {
            throw expected("expected ',' after the lower bound of '\(keyword.text)'", found: current)
        }
        try advance()
        let high = try value(for: attribute, context: "as the upper bound of '\(keyword.text)'", nilAllowed: false)
        guard case .rightBrace = current.kind else {
            throw expected("expected '}' after the upper bound of '\(keyword.text)' (it takes exactly two values)", found: current)
        }
        try advance()
        return .between(low, high)
    }
}
