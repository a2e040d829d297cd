/// The `[c]`, `[d]` and `[cd]` modifiers of a string comparison.
///
/// Both sides of the comparison are folded with `TextFolding.fold` before they are compared
/// (for `MATCHES`, `[c]` is the regular expression's case-insensitive option instead).
public struct ComparisonOptions: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `[c]`: letters match regardless of case.
    public static let caseInsensitive = ComparisonOptions(rawValue: 1)
    /// `[d]`: letters match regardless of diacritics (`é` matches `e`).
    public static let diacriticInsensitive = ComparisonOptions(rawValue: 2)

    /// The letters of the modifier: `""`, `"c"`, `"d"` or `"cd"` (the flags argument of the
    /// SQL functions).
    public var flags: String {
        (contains(.caseInsensitive) ? "c" : "") + (contains(.diacriticInsensitive) ? "d" : "")
    }

    /// Reads the letters of a modifier (`c`, `d`, in any order and case, each at most once);
    /// `nil` for anything else.
    public init?(flags: String) {
        var options = ComparisonOptions()
        for letter in flags.unicodeScalars {
            let option: ComparisonOptions
            switch letter {
            case "c", "C": option = .caseInsensitive
            case "d", "D": option = .diacriticInsensitive
            default: return nil
            }
            if options.contains(option) { return nil }
            options.insert(option)
        }
        self = options
    }

    /// The modifier as written after an operator: `""` or `"[c]"`, `"[d]"`, `"[cd]"`.
    public var description: String { isEmpty ? "" : "[\(flags)]" }
}
