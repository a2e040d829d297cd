/// Splits a predicate's text into tokens, one at a time, refusing malformed literals with a
/// positioned error.
struct PredicateTokenizer {
    private let scalars: [Unicode.Scalar]
    private var index = 0
    /// Offset just after the last token read.
    private var lastEnd = 0

    init(_ text: String) { scalars = Array(text.unicodeScalars) }

    /// The 1-based character position of the scalar at `offset` (Characters of the text before
    /// it, plus one).
    func position(of offset: Int) -> Int {
        var prefix = String.UnicodeScalarView()
        prefix.append(contentsOf: scalars[0..<min(max(offset, 0), scalars.count)])
        return String(prefix).count + 1
    }

    func error(_ kind: MetadataPredicateError.Kind, at offset: Int, _ message: String) -> MetadataPredicateError {
        MetadataPredicateError(kind, position: position(of: offset), message)
    }

    private func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
        index + ahead < scalars.count ? scalars[index + ahead] : nil
    }

    private static func isDigit(_ scalar: Unicode.Scalar?) -> Bool {
        guard let scalar else { return false }
        return scalar >= "0" && scalar <= "9"
    }

    private static func isIdentifierStart(_ scalar: Unicode.Scalar?) -> Bool {
        guard let scalar else { return false }
        return scalar == "_" || scalar.properties.isAlphabetic
    }

    private static func isIdentifierPart(_ scalar: Unicode.Scalar?) -> Bool {
        isIdentifierStart(scalar) || isDigit(scalar)
    }

    /// The scalar as an error message shows it: `'x'`, or `U+0007` when it is invisible.
    static func show(_ scalar: Unicode.Scalar) -> String {
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator,
             .spaceSeparator, .nonspacingMark, .enclosingMark:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        default:
            return "'\(scalar)'"
        }
    }

    private func text(_ start: Int) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[start..<index])
        return String(view)
    }

    private mutating func token(_ kind: PredicateToken.Kind, from start: Int) -> PredicateToken {
        lastEnd = index
        return PredicateToken(kind: kind, start: start, end: index, text: text(start))
    }

    mutating func next() throws(MetadataPredicateError) -> PredicateToken {
        while let scalar = peek(), scalar.properties.isWhitespace { index += 1 }
        let start = index
        guard let scalar = peek() else {
            return PredicateToken(kind: .end, start: lastEnd, end: lastEnd, text: "")
        }
        switch scalar {
        case "(": index += 1; return token(.leftParen, from: start)
        case ")": index += 1; return token(.rightParen, from: start)
        case "{": index += 1; return token(.leftBrace, from: start)
        case "}": index += 1; return token(.rightBrace, from: start)
        case ",": index += 1; return token(.comma, from: start)
        case "=":
            index += 1
            switch peek() {
            case "=": index += 1; return token(.comparison(.equal), from: start)
            case "<": index += 1; return token(.comparison(.lessOrEqual), from: start)
            case ">": index += 1; return token(.comparison(.greaterOrEqual), from: start)
            default: return token(.comparison(.equal), from: start)
            }
        case "!":
            index += 1
            if peek() == "=" { index += 1; return token(.comparison(.notEqual), from: start) }
            return token(.not, from: start)
        case "<":
            index += 1
            switch peek() {
            case "=": index += 1; return token(.comparison(.lessOrEqual), from: start)
            case ">": index += 1; return token(.comparison(.notEqual), from: start)
            default: return token(.comparison(.less), from: start)
            }
        case ">":
            index += 1
            if peek() == "=" { index += 1; return token(.comparison(.greaterOrEqual), from: start) }
            return token(.comparison(.greater), from: start)
        case "&":
            guard peek(1) == "&" else { throw error(.syntax, at: start, "unexpected character '&' (write && or AND)") }
            index += 2
            return token(.and, from: start)
        case "|":
            guard peek(1) == "|" else { throw error(.syntax, at: start, "unexpected character '|' (write || or OR)") }
            index += 2
            return token(.or, from: start)
        case "'", "\"":
            return try string(quote: scalar)
        case "[":
            return try modifier()
        case "-" where Self.isDigit(peek(1)):
            return try number()
        default:
            if Self.isDigit(scalar) { return try number() }
            if Self.isIdentifierStart(scalar) { return word() }
            throw error(.syntax, at: start, "unexpected character \(Self.show(scalar))")
        }
    }

    // MARK: words

    private static let keywords: [String: PredicateToken.Kind] = [
        "AND": .and, "OR": .or, "NOT": .not,
        "BEGINSWITH": .text(.beginsWith), "ENDSWITH": .text(.endsWith), "CONTAINS": .text(.contains),
        "LIKE": .like, "MATCHES": .matches, "IN": .in, "BETWEEN": .between,
        "TRUE": .bool(true), "YES": .bool(true), "FALSE": .bool(false), "NO": .bool(false),
        "NIL": .null, "NULL": .null, "TRUEPREDICATE": .constant(true), "FALSEPREDICATE": .constant(false),
    ]

    private mutating func word() -> PredicateToken {
        let start = index
        while Self.isIdentifierPart(peek()) { index += 1 }
        let word = text(start)
        if word.utf8.count <= 14, word.utf8.allSatisfy({ $0 < 0x80 }), let keyword = Self.keywords[word.uppercased()] {
            return token(keyword, from: start)
        }
        return token(.identifier(word), from: start)
    }

    // MARK: modifiers

    private mutating func modifier() throws(MetadataPredicateError) -> PredicateToken {
        let start = index
        index += 1
        while Self.isIdentifierPart(peek()) { index += 1 }
        guard peek() == "]" else {
            throw error(.syntax, at: start, "expected a modifier [c], [d] or [cd] after '['")
        }
        let letters = text(start + 1)
        index += 1
        guard !letters.isEmpty, let options = ComparisonOptions(flags: letters) else {
            throw error(.syntax, at: start, "unknown modifier '\(text(start))' (expected [c], [d] or [cd])")
        }
        return token(.modifier(options), from: start)
    }

    // MARK: strings

    private mutating func string(quote: Unicode.Scalar) throws(MetadataPredicateError) -> PredicateToken {
        let start = index
        index += 1
        var value = String.UnicodeScalarView()
        while true {
            guard let scalar = peek() else {
                throw error(.invalidLiteral, at: start, "unterminated string: no closing \(quote) for this quote")
            }
            index += 1
            if scalar == quote { break }
            if scalar == "\u{0}" {
                throw error(.invalidLiteral, at: index - 1, "a string may not contain the NUL character (U+0000)")
            }
            guard scalar == "\\" else {
                value.append(scalar)
                continue
            }
            guard let escaped = peek() else {
                throw error(.invalidLiteral, at: start, "unterminated string: no closing \(quote) for this quote")
            }
            index += 1
            switch escaped {
            case "\\", "'", "\"": value.append(escaped)
            case "n": value.append("\n")
            case "t": value.append("\t")
            case "r": value.append("\r")
            case "u": value.append(try unicodeEscape(backslash: index - 2))
            default:
                // Kept as written, so LIKE and MATCHES see their own escapes (`\*`, `\d`).
                value.append("\\")
                value.append(escaped)
            }
        }
        return token(.string(String(value)), from: start)
    }

    /// `\u{1F600}` (1–6 hex digits) or `\u00E9` (exactly 4): a Unicode scalar other than NUL.
    private mutating func unicodeEscape(backslash: Int) throws(MetadataPredicateError) -> Unicode.Scalar {
        var digits = ""
        if peek() == "{" {
            index += 1
            while let scalar = peek(), scalar != "}", digits.count <= 6, scalar.properties.isASCIIHexDigit {
                digits.unicodeScalars.append(scalar)
                index += 1
            }
            if peek() == "}" { index += 1 } else { digits = "" }
        } else {
            while let scalar = peek(), digits.count < 4, scalar.properties.isASCIIHexDigit {
                digits.unicodeScalars.append(scalar)
                index += 1
            }
            if digits.count != 4 { digits = "" }
        }
        guard !digits.isEmpty, digits.count <= 6, let value = UInt32(digits, radix: 16), value != 0,
              let scalar = Unicode.Scalar(value)
        else {
            throw error(.invalidLiteral, at: backslash, "invalid escape '\(text(backslash))' in a string "
                + "(expected \\u{hex} or \\uXXXX naming a Unicode scalar other than U+0000)")
        }
        return scalar
    }

    // MARK: numbers, sizes and dates

    private static let sizeUnits: [String: Int64] = [
        "b": 1, "kb": 1_000, "mb": 1_000_000, "gb": 1_000_000_000, "tb": 1_000_000_000_000,
        "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
    ]

    private mutating func number() throws(MetadataPredicateError) -> PredicateToken {
        let start = index
        let negative = peek() == "-"
        if negative { index += 1 }
        let digitsStart = index
        while Self.isDigit(peek()) { index += 1 }
        if !negative, index - digitsStart == 4, peek() == "-", Self.isDigit(peek(1)) {
            return try date(from: start)
        }
        var isWhole = true
        if peek() == ".", Self.isDigit(peek(1)) {
            isWhole = false
            index += 1
            while Self.isDigit(peek()) { index += 1 }
        }
        if peek() == "e" || peek() == "E",
           Self.isDigit(peek(1)) || ((peek(1) == "+" || peek(1) == "-") && Self.isDigit(peek(2))) {
            isWhole = false
            index += 2
            while Self.isDigit(peek()) { index += 1 }
        }
        let mantissa = text(start)
        guard Self.isIdentifierStart(peek()) else {
            if isWhole, let integer = Int64(mantissa) { return token(.number(.integer(integer)), from: start) }
            guard let double = Double(mantissa), double.isFinite else {
                throw error(.invalidLiteral, at: start, "number \(mantissa) is out of range")
            }
            return token(.number(.double(double)), from: start)
        }
        let unitStart = index
        while Self.isIdentifierPart(peek()) { index += 1 }
        let unit = text(unitStart)
        guard let multiplier = Self.sizeUnits[unit.lowercased()] else {
            throw error(.invalidLiteral, at: start, "unknown size unit '\(unit)' in '\(text(start))' "
                + "(expected B, KB, MB, GB, TB, KiB, MiB, GiB or TiB)")
        }
        guard let bytes = Self.bytes(mantissa, multiplier) else {
            throw error(.invalidLiteral, at: start, "size \(text(start)) is out of range")
        }
        return token(.size(bytes), from: start)
    }

    /// `mantissa` × `multiplier`: a whole number of bytes when it is one and fits `Int64`,
    /// else the nearest `Double`; `nil` when not finite.
    private static func bytes(_ mantissa: String, _ multiplier: Int64) -> MetadataNumber? {
        let negative = mantissa.hasPrefix("-")
        let body = negative ? String(mantissa.dropFirst()) : mantissa
        if !body.contains(where: { $0 == "e" || $0 == "E" }) {
            let parts = body.split(separator: ".", omittingEmptySubsequences: false)
            let fraction = parts.count > 1 ? String(parts[1]) : ""
            if fraction.count <= 18, let digits = Int64(String(parts[0]) + fraction) {
                var divisor: Int64 = 1
                for _ in 0..<fraction.count { divisor *= 10 }
                let (scaled, overflow) = digits.multipliedReportingOverflow(by: multiplier)
                if !overflow, scaled % divisor == 0 { return .integer((negative ? -1 : 1) * (scaled / divisor)) }
            }
        }
        guard let value = Double(mantissa), (value * Double(multiplier)).isFinite else { return nil }
        return .double(value * Double(multiplier))
    }

    private mutating func date(from start: Int) throws(MetadataPredicateError) -> PredicateToken {
        while let scalar = peek(), Self.isIdentifierPart(scalar) || scalar == ":" || scalar == "+" || scalar == "-" || scalar == "." {
            index += 1
        }
        let literal = text(start)
        do {
            return token(.date(try ISO8601Timestamp.parse(literal)), from: start)
        } catch {
            throw self.error(.invalidLiteral, at: start, "invalid date '\(literal)': \(error.reason)")
        }
    }
}
