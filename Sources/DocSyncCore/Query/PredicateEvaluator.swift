/// The reference semantics of a predicate, evaluated in Swift against one item.
///
/// - A comparison with an attribute whose value is nil is false, except `== nil` (true) and
///   `!= nil` (false); so `NOT (downloadingError CONTAINS 'x')` holds for an item without an
///   error.
/// - Strings compare by Unicode scalars (the order of their UTF-8 bytes), after folding
///   both sides with `TextFolding.fold` when the comparison has `[c]`/`[d]`.
/// - Numbers compare by exact value (`MetadataNumber.compare`); dates by nanoseconds;
///   booleans only for equality.
/// - A value whose type is not the attribute's makes the comparison false.
///
/// `PredicateSQL.compile` gives the same answers for index rows.
extension MetadataPredicate {
    public func evaluate(_ item: some MetadataValues) -> Bool {
        switch self {
        case .constant(let value): value
        case .comparison(let comparison): comparison.evaluate(item.value(of: comparison.attribute))
        case .not(let operand): !operand.evaluate(item)
        case .and(let terms): terms.allSatisfy { $0.evaluate(item) }
        case .or(let terms): terms.contains { $0.evaluate(item) }
        }
    }
}

extension PredicateComparison {
    /// Whether `value`, the attribute's value for some item, passes this comparison.
    public func evaluate(_ value: MetadataValue) -> Bool {
        switch foldedTest {
        case .compare(.equal, .null): return value == .null
        case .compare(.notEqual, .null): return value != .null
        default: break
        }
        if value == .null { return false }
        switch foldedTest {
        case let .compare(op, literal):
            guard let order = order(value, literal) else { return false }
            return op.holds(forOrder: order)
        case let .text(op, needle):
            guard case .string(let text) = value else { return false }
            let haystack = TextFolding.fold(text, options).utf8
            switch op {
            case .beginsWith: return haystack.starts(with: needle.utf8)
            case .endsWith: return haystack.count >= needle.utf8.count && haystack.suffix(needle.utf8.count).elementsEqual(needle.utf8)
            case .contains: return needle.isEmpty || haystack.firstRange(of: needle.utf8) != nil
            }
        case let .like(pattern):
            guard case .string(let text) = value else { return false }
            return pattern.matches(text)
        case let .matches(pattern):
            guard case .string(let text) = value else { return false }
            return pattern.matches(text)
        case let .oneOf(literals):
            return literals.contains { order(value, $0) == 0 }
        case let .between(low, high):
            guard let above = order(value, low), let below = order(value, high) else { return false }
            return above >= 0 && below <= 0
        }
    }

    /// The order of an item's value and a (folded) literal: negative, zero or positive, or
    /// `nil` when they cannot be compared.
    private func order(_ value: MetadataValue, _ literal: MetadataValue) -> Int? {
        switch (value, literal) {
        case let (.string(a), .string(b)): Self.compareBytes(TextFolding.fold(a, options), b)
        case let (.number(a), .number(b)): MetadataNumber.compare(a, b)
        case let (.date(a), .date(b)): a < b ? -1 : (a == b ? 0 : 1)
        case let (.bool(a), .bool(b)): a == b ? 0 : (a ? 1 : -1)
        default: nil
        }
    }

    /// The order of two strings' UTF-8 bytes (SQLite's binary collation).
    static func compareBytes(_ a: String, _ b: String) -> Int {
        var left = a.utf8.makeIterator(), right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (x?, y?) where x != y: return x < y ? -1 : 1
            default: continue
            }
        }
    }
}
