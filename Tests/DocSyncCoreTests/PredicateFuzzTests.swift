import DocSyncCore
import DocSyncTestSupport
import Testing

/// Whatever the text, parsing returns a predicate or a positioned error — it never traps —
/// and what parses can be evaluated, compiled to SQL and written back.
@Suite struct PredicateFuzzTests {
    static let vocabulary = [
        "name", "path", "size", "modified", "kind", "downloadingStatus", "isDownloading", "percentDownloaded", "isUploading",
        "isUploaded", "percentUploaded", "downloadingError", "uploadingError", "hasUnresolvedConflicts", "nmae", "Size", "x",
        "==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "!", "&&", "||", "&", "|", "BEGINSWITH", "endswith", "CONTAINS",
        "LIKE", "MATCHES", "IN", "BETWEEN", "AND", "or", "NOT", "TRUEPREDICATE", "FALSEPREDICATE", "[c]", "[d]", "[cd]", "[x]", "[",
        "]", "(", ")", "{", "}", ",", "true", "NO", "nil", "NULL", "'a'", "\"b\"", "'*.pdf'", "'report-????.txt'", #"'a\*b'"#,
        #"'\d+'"#, "'('", "'[a'", "'(?x)#'", #"'\Q'"#, "'é'", "'e\u{301}'", "'", "\"", #"'\u{41}'"#, #"'\u{D800}'"#, #"'\'"#,
        "0", "-1", "1.5", "10MB", "1.5GiB", "4kb", "1e3", "1e", "99e999", "5XB", "2026-01-01", "2026-01-01T12:30:00Z",
        "2026-01-01T12:30:00.123456789+02:00", "2026-13-01", "2026-", "'2026-01-01'", "3000-01-01", "#", "~", ".", "-", "😀", "\u{0}",
        "\u{7}", "\n", " ",
    ]

    static let items = [
        MetadataSnapshot([.name: .string("a.pdf"), .path: .string("x/a.pdf"), .size: .integer(10_000_000),
                          .modified: .date(Timestamp(nanosecondsSince1970: 1_767_225_600_000_000_000)), .kind: .string("Document"),
                          .isUploaded: .bool(true), .percentUploaded: .double(100), .uploadingError: .string("é")]),
        MetadataSnapshot(),
    ]

    static func randomScalar(_ random: inout SeededRandom) -> Unicode.Scalar {
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return Unicode.Scalar(UInt8.random(in: 0..<0x20, using: &random))
        case 1: return Unicode.Scalar(UInt32.random(in: 0x80...0x2FFF, using: &random)) ?? "?"
        case 2: return Unicode.Scalar(UInt32.random(in: 0x1F300...0x1F64F, using: &random)) ?? "?"
        default: return Unicode.Scalar(UInt8.random(in: 0x20..<0x7F, using: &random))
        }
    }

    /// A random mix of tokens, joined with or without spaces.
    static func tokenSoup(_ random: inout SeededRandom) -> String {
        var text = ""
        for _ in 0..<Int.random(in: 0...12, using: &random) {
            text += vocabulary.randomElement(using: &random)!
            if Bool.random(using: &random) || Int.random(in: 0..<4, using: &random) == 0 { text += " " }
        }
        return text
    }

    /// A valid predicate, then one random edit of its text (delete, repeat or swap a stretch).
    static func mutatedPredicate(_ random: inout SeededRandom) -> String {
        let valid = [
            "name LIKE '*.pdf' AND size > 1MB", "(isUploaded OR NOT isDownloading) AND modified >= 2026-01-01",
            "downloadingError == nil || uploadingError CONTAINS[cd] 'quota'", "size BETWEEN {1KB, 1MiB} AND kind IN {'Document'}",
            "name MATCHES[c] 'report-\\d{4}\\.txt' OR path BEGINSWITH 'a/'", "5MB < size AND NOT (percentUploaded < 100)",
        ].randomElement(using: &random)!
        var scalars = Array(valid.unicodeScalars)
        let start = Int.random(in: 0...scalars.count, using: &random)
        let end = Int.random(in: start...min(scalars.count, start + 6), using: &random)
        switch Int.random(in: 0..<3, using: &random) {
        case 0: scalars.removeSubrange(start..<end)
        case 1: scalars.insert(contentsOf: scalars[start..<end], at: start)
        default: scalars.insert(randomScalar(&random), at: start)
        }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    @Test func tenThousandRandomTextsNeverTrap() throws {
        let seed: UInt64 = 0x9E37_2026
        var random = SeededRandom(seed: seed)
        var parsed = 0
        for round in 0..<10_000 {
            let text: String
            switch round % 3 {
            case 0:
                var view = String.UnicodeScalarView()
                for _ in 0..<Int.random(in: 0...40, using: &random) { view.append(Self.randomScalar(&random)) }
                text = String(view)
            case 1: text = Self.tokenSoup(&random)
            default: text = Self.mutatedPredicate(&random)
            }
            do {
                let predicate = try MetadataPredicate(parsing: text)
                parsed += 1
                for item in Self.items { _ = predicate.evaluate(item) }
                let sql = PredicateSQL.compile(predicate) { "\"\($0.rawValue)\"" }
                #expect(!sql.sql.isEmpty)
                #expect(try MetadataPredicate(parsing: predicate.description) == predicate,
                        "seed \(seed) round \(round): \(text.debugDescription) → \(predicate)")
            } catch {
                #expect(error.position >= 1 && error.position <= text.count + 1,
                        "seed \(seed) round \(round): \(text.debugDescription) → \(error)")
                #expect(!error.message.isEmpty)
            }
        }
        // The mutations keep a fair share valid, so the round trip is exercised too.
        #expect(parsed > 500, "only \(parsed) texts parsed")
    }
}
