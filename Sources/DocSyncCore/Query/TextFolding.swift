import Foundation

/// The folding behind `[c]` and `[d]`: a pure function of the text and the options, the
/// same in the evaluator and (as the SQL function `docsync_fold`) in SQLite.
///
/// - `[c]` maps every Unicode scalar to its full lowercase mapping (`String.lowercased()`):
///   `"ÉCOLE"` → `"école"`.
/// - `[d]` decomposes canonically (NFD), drops nonspacing marks (general category Mn) and
///   recomposes (NFC): `"école"` → `"ecole"`, and `"e\u{301}"` → `"e"`. Letters that do not
///   decompose (`ø`, `ł`) are kept.
/// - `[cd]` does `[c]` then `[d]`.
///
/// ASCII text needs no Unicode tables: `[c]` lowercases A–Z and `[d]` leaves it as it is.
public enum TextFolding {
    public static func fold(_ text: String, _ options: ComparisonOptions) -> String {
        if options.isEmpty { return text }
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            guard options.contains(.caseInsensitive) else { return text }
            return String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
        }
        var folded = text
        if options.contains(.caseInsensitive) { folded = folded.lowercased() }
        if options.contains(.diacriticInsensitive) {
            var scalars = String.UnicodeScalarView()
            for scalar in folded.decomposedStringWithCanonicalMapping.unicodeScalars
            where scalar.properties.generalCategory != .nonspacingMark {
                scalars.append(scalar)
            }
            folded = String(scalars).precomposedStringWithCanonicalMapping
        }
        return folded
    }
}
