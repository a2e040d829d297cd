import Foundation

/// The pattern of `MATCHES`: an ICU regular expression (`NSRegularExpression`) that must
/// match the whole text, not just a part of it.
///
/// `[c]` compiles it case-insensitively; `[d]` folds diacritics out of both the pattern and
/// the text (`TextFolding.fold` with `[d]`) before matching. The expression is compiled once,
/// when the pattern is made; an invalid one is refused then.
public struct RegexPattern: Hashable, Sendable, CustomStringConvertible {
    /// The pattern as written (after the string literal's own escapes).
    public let pattern: String
    public let options: ComparisonOptions
    private let expression: NSRegularExpression

    /// Why a pattern was refused, as a phrase for an error message.
    public struct Invalid: Error, Hashable, Sendable {
        public let reason: String
    }

    public init(_ pattern: String, options: ComparisonOptions = []) throws(Invalid) {
        self.pattern = pattern
        self.options = options
        var source = options.contains(.diacriticInsensitive) ? TextFolding.fold(pattern, .diacriticInsensitive) : pattern
        if source.isEmpty { source = "(?:)" }  // ICU refuses an empty pattern; this one matches only ""
        let regexOptions: NSRegularExpression.Options = options.contains(.caseInsensitive) ? [.caseInsensitive] : []
        guard (try? NSRegularExpression(pattern: source, options: regexOptions)) != nil else {
            throw Invalid(reason: "it is not a valid regular expression")
        }
        // The pattern is anchored as `\A(?:pattern)\z`. That is only right if the `)` closes the
        // group: if the pattern leaves a `\Q…` quote open, `\E` must end it first (ICU takes a
        // stray `\E` for a literal `E`, so it is added only then); if the `)` would still be
        // swallowed (the pattern ends inside a `(?x)` comment), anchoring would change its
        // meaning, so it is refused.
        func compiles(_ candidate: String) -> Bool {
            (try? NSRegularExpression(pattern: candidate, options: regexOptions)) != nil
        }
        let body: String
        if !compiles(source + ")") {
            body = source
        } else if !compiles(source + "\\E)") {
            body = source + "\\E"
        } else {
            throw Invalid(reason: "it ends inside a comment, so it cannot be anchored")
        }
        do {
            expression = try NSRegularExpression(pattern: "\\A(?:" + body + ")\\z", options: regexOptions)
        } catch {
            throw Invalid(reason: "it is not a valid regular expression")
        }
    }

    /// True when the expression matches the whole of `text`.
    public func matches(_ text: String) -> Bool {
        let subject = options.contains(.diacriticInsensitive) ? TextFolding.fold(text, .diacriticInsensitive) : text
        let range = NSRange(location: 0, length: subject.utf16.count)
        return expression.firstMatch(in: subject, options: [], range: range) != nil
    }

    /// The pattern as a predicate's string literal.
    public var description: String { PredicateLiteral.quoted(pattern) }

    public static func == (lhs: RegexPattern, rhs: RegexPattern) -> Bool {
        lhs.pattern.unicodeScalars.elementsEqual(rhs.pattern.unicodeScalars) && lhs.options == rhs.options
    }

    public func hash(into hasher: inout Hasher) {
        for scalar in pattern.unicodeScalars { hasher.combine(scalar) }
        hasher.combine(options)
    }
}
