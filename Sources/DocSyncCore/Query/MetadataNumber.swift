/// A number in a metadata predicate or attribute: a whole number (`Int64`, exact) or a
/// fractional one (`Double`).
///
/// Numbers of either kind compare by their exact mathematical values (an `Int64` is never
/// rounded to a `Double` to be compared), which is how SQLite compares INTEGER and REAL
/// values. Equality of the enum itself (`Hashable`) is structural: `.integer(3)` and
/// `.double(3)` are different literals that compare as equal numbers.
public enum MetadataNumber: Hashable, Sendable, CustomStringConvertible {
    case integer(Int64)
    case double(Double)

    /// The order of `lhs` and `rhs` as numbers: negative, zero or positive; `nil` when either
    /// is NaN (which compares with nothing).
    public static func compare(_ lhs: MetadataNumber, _ rhs: MetadataNumber) -> Int? {
        switch (lhs, rhs) {
        case let (.integer(a), .integer(b)): return a < b ? -1 : (a == b ? 0 : 1)
        case let (.double(a), .double(b)):
            if a.isNaN || b.isNaN { return nil }
            return a < b ? -1 : (a == b ? 0 : 1)
        case let (.integer(a), .double(b)): return compare(a, b)
        case let (.double(a), .integer(b)): return compare(b, a).map { -$0 }
        }
    }

    /// The exact order of an integer and a double.
    private static func compare(_ integer: Int64, _ double: Double) -> Int? {
        if double.isNaN { return nil }
        // 2^63 is exactly representable; every Int64 is below it and at or above -2^63.
        if double >= 9_223_372_036_854_775_808.0 { return -1 }
        if double < -9_223_372_036_854_775_808.0 { return 1 }
        let whole = double.rounded(.down)
        let wholeInteger = Int64(whole)
        if integer < wholeInteger { return -1 }
        if integer > wholeInteger { return 1 }
        return whole < double ? -1 : 0
    }

    /// The number as the predicate language writes it (`12`, `1.5`, `1e+20`).
    public var description: String {
        switch self {
        case .integer(let value): String(value)
        case .double(let value): value.description
        }
    }

    /// The nearest `Double`.
    public var doubleValue: Double {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        }
    }
}
