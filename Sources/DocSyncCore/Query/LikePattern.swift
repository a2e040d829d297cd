/// The pattern of `LIKE`: a glob anchored at both ends, matched Unicode scalar by scalar.
///
/// `*` matches any run of scalars (including none, and including `/`), `?` exactly one
/// scalar, and `\` makes the next scalar literal (`\*`, `\?`, `\\`). Every other scalar,
/// `[` and `]` included, is literal. With `[c]`/`[d]` the text and each run of literal
/// scalars of the pattern are folded with `TextFolding.fold` before matching. Matching takes
/// at most pattern × text steps, never exponential time.
public struct LikePattern: Hashable, Sendable, CustomStringConvertible {
    /// The pattern as written (after the string literal's own escapes).
    public let pattern: String
    public let options: ComparisonOptions
    private let elements: [Element]

    enum Element: Hashable, Sendable {
        case scalar(Unicode.Scalar)
        case anyScalar
        case anyRun
    }

    /// A pattern that ends with a `\` escaping nothing.
    public struct Invalid: Error, Hashable, Sendable {}

    public init(_ pattern: String, options: ComparisonOptions = []) throws(Invalid) {
        self.pattern = pattern
        self.options = options
        var elements: [Element] = []
        var literal = String.UnicodeScalarView()
        func flushLiteral() {
            guard !literal.isEmpty else { return }
            elements += TextFolding.fold(String(literal), options).unicodeScalars.map(Element.scalar)
            literal.removeAll()
        }
        var iterator = pattern.unicodeScalars.makeIterator()
        while let scalar = iterator.next() {
            switch scalar {
            case "*":
                flushLiteral()
                if elements.last != .anyRun { elements.append(.anyRun) }
            case "?":
                flushLiteral()
                elements.append(.anyScalar)
            case "\\":
                guard let escaped = iterator.next() else { throw Invalid() }
                literal.append(escaped)
            default:
                literal.append(scalar)
            }
        }
        flushLiteral()
        self.elements = elements
    }

    /// True when the whole of `text` matches.
    public func matches(_ text: String) -> Bool {
        let scalars = Array(TextFolding.fold(text, options).unicodeScalars)
        return WildcardMatch.matches(elements, scalars, isRun: { $0 == .anyRun }) { element, scalar in
            element == .anyScalar || element == .scalar(scalar)
        }
    }

    /// The same pattern for SQLite's `GLOB` operator (case-sensitive, scalar by scalar, `*`
    /// and `?` as here), or `nil` when the pattern has options (GLOB cannot fold). Literal
    /// `*`, `?` and `[` are written as the one-member classes `[*]`, `[?]`, `[[]`; `]` outside
    /// a class is literal to GLOB.
    public var sqliteGlob: String? {
        guard options.isEmpty else { return nil }
        var glob = ""
        for element in elements {
            switch element {
            case .anyRun: glob += "*"
            case .anyScalar: glob += "?"
            case .scalar("*"): glob += "[*]"
            case .scalar("?"): glob += "[?]"
            case .scalar("["): glob += "[[]"
            case .scalar(let scalar): glob.unicodeScalars.append(scalar)
            }
        }
        return glob
    }

    /// The extension (the scalars after the last `.`) of every text this pattern matches,
    /// when the pattern fixes it: it ends with a literal `.` followed only by literal scalars,
    /// none a `.` (`*.jpg` → `jpg`, `IMG_*.tar.gz` → `gz`). `nil` otherwise, and with options.
    public var fixedExtension: String? {
        guard options.isEmpty else { return nil }
        var tail = String.UnicodeScalarView()
        for element in elements.reversed() {
            guard case .scalar(let scalar) = element else { return nil }
            if scalar == "." { return tail.isEmpty ? nil : String(tail) }
            tail.insert(scalar, at: tail.startIndex)
        }
        return nil
    }

    /// The pattern as a predicate's string literal.
    public var description: String { PredicateLiteral.quoted(pattern) }

    public static func == (lhs: LikePattern, rhs: LikePattern) -> Bool {
        lhs.pattern.unicodeScalars.elementsEqual(rhs.pattern.unicodeScalars) && lhs.options == rhs.options
    }

    public func hash(into hasher: inout Hasher) {
        for scalar in pattern.unicodeScalars { hasher.combine(scalar) }
        hasher.combine(options)
    }
}
