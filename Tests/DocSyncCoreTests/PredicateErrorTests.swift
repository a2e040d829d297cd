import DocSyncCore
import Testing

/// Every error the parser reports: its kind, its 1-based character position and its text.
@Suite struct PredicateErrorTests {
    typealias Kind = MetadataPredicateError.Kind

    static let attributeList = "name, path, size, modified, kind, downloadingStatus, isDownloading, percentDownloaded, isUploading, "
        + "isUploaded, percentUploaded, downloadingError, uploadingError, hasUnresolvedConflicts, deletedAt, deletedBy, isShared, role, permissions, ownerName, "
        + "lastEditorName"

    static let cases: [(String, Kind, Int, String)] = [
        // structure
        ("", .syntax, 1, "empty predicate (write a comparison such as name LIKE '*.pdf', or TRUEPREDICATE)"),
        ("   ", .syntax, 1, "empty predicate (write a comparison such as name LIKE '*.pdf', or TRUEPREDICATE)"),
        ("size ==", .syntax, 8, "expected a value after '==' for attribute 'size' (a number or size like 10MB)"),
        ("size == ", .syntax, 8, "expected a value after '==' for attribute 'size' (a number or size like 10MB)"),
        ("size == )", .syntax, 9, "expected a value after '==' for attribute 'size' (a number or size like 10MB), found ')'"),
        ("size", .syntax, 5, "expected an operator after attribute 'size' (==, !=, <, <=, >, >=, IN or BETWEEN)"),
        ("name AND size > 1", .syntax, 6, "expected an operator after attribute 'name' (==, !=, <, <=, >, >=, BEGINSWITH, "
            + "ENDSWITH, CONTAINS, LIKE, MATCHES, IN or BETWEEN), found 'AND'"),
        ("name == 'x' AND", .syntax, 16, "expected a comparison, NOT or '(' after 'AND'"),
        ("name == 'x' OR OR", .syntax, 16, "expected a comparison, NOT or '(' after 'OR', found 'OR'"),
        ("name == 'x' AND AND", .syntax, 17, "expected a comparison, NOT or '(' after 'AND', found 'AND'"),
        ("AND name == 'x'", .syntax, 1, "expected a comparison, NOT or '(', found 'AND'"),
        ("NOT", .syntax, 4, "expected a comparison, NOT or '(' after 'NOT'"),
        ("(((", .syntax, 4, "expected a comparison, NOT or '(' after '('"),
        (")", .syntax, 1, "expected a comparison, NOT or '(', found ')'"),
        ("(name == 'x'", .syntax, 13, "expected ')' to close the '(' at position 1"),
        ("size > 1 AND (name == 'x' OR isUploaded AND", .syntax, 44, "expected a comparison, NOT or '(' after 'AND'"),
        ("size > 1 AND (name == 'x' OR isUploaded", .syntax, 40, "expected ')' to close the '(' at position 14"),
        ("name == 'x')", .syntax, 12, "unexpected ')' with no '(' to close"),
        ("name == 'x' name == 'y'", .syntax, 13, "expected AND, OR or the end of the query, found 'name'"),
        ("size > 5 MB", .syntax, 10, "expected AND, OR or the end of the query (write sizes without a space, like 10MB), found 'MB'"),
        // attributes
        ("nmae == 'x'", .unknownAttribute, 1, "unknown attribute 'nmae' (did you mean 'name'?)"),
        ("Name == 'x'", .unknownAttribute, 1, "unknown attribute 'Name' (did you mean 'name'?)"),
        ("isuploaded", .unknownAttribute, 1, "unknown attribute 'isuploaded' (did you mean 'isUploaded'?)"),
        ("modifed > 2026-01-01", .unknownAttribute, 1, "unknown attribute 'modifed' (did you mean 'modified'?)"),
        ("foo == 1", .unknownAttribute, 1, "unknown attribute 'foo' (the attributes are \(attributeList))"),
        ("é == 1", .unknownAttribute, 1, "unknown attribute 'é' (the attributes are \(attributeList))"),
        ("5 < nmae", .unknownAttribute, 5, "unknown attribute 'nmae' (did you mean 'name'?)"),
        // operators and types
        ("size == 'abc'", .typeMismatch, 9, "expected a value after '==' for attribute 'size' (a number or size like 10MB), found string 'abc'"),
        ("isUploaded > 3", .typeMismatch, 12, "operator '>' does not apply to attribute 'isUploaded' (a boolean): use ==, != or IN"),
        ("isUploaded > true", .typeMismatch, 12, "operator '>' does not apply to attribute 'isUploaded' (a boolean): use ==, != or IN"),
        ("5 > isUploaded", .typeMismatch, 3, "operator '>' does not apply to attribute 'isUploaded' (a boolean): use ==, != or IN"),
        ("size LIKE '*'", .typeMismatch, 6, "operator 'LIKE' does not apply to attribute 'size' (a number): use ==, !=, <, <=, >, >=, IN or BETWEEN"),
        ("modified CONTAINS 'x'", .typeMismatch, 10,
         "operator 'CONTAINS' does not apply to attribute 'modified' (a date): use ==, !=, <, <=, >, >=, IN or BETWEEN"),
        ("isUploaded BETWEEN {true, false}", .typeMismatch, 12,
         "operator 'BETWEEN' does not apply to attribute 'isUploaded' (a boolean): use ==, != or IN"),
        ("isDownloading matches 'x'", .typeMismatch, 15,
         "operator 'matches' does not apply to attribute 'isDownloading' (a boolean): use ==, != or IN"),
        ("size ==[c] 5", .typeMismatch, 8, "modifier '[c]' applies only to string attributes; 'size' is a number"),
        ("5 ==[c] size", .typeMismatch, 5, "modifier '[c]' applies only to string attributes; 'size' is a number"),
        ("'x' ==[c] size", .typeMismatch, 7, "modifier '[c]' applies only to string attributes; 'size' is a number"),
        ("modified <[d] 2026-01-01", .typeMismatch, 11, "modifier '[d]' applies only to string attributes; 'modified' is a date"),
        ("size > nil", .typeMismatch, 8, "nil can only be compared with == or !="),
        ("downloadingError CONTAINS nil", .typeMismatch, 27, "nil can only be compared with == or !="),
        ("name MATCHES nil", .typeMismatch, 14, "nil can only be compared with == or !="),
        ("nil < size", .typeMismatch, 1, "nil can only be compared with == or !="),
        ("size IN {1, nil}", .typeMismatch, 13, "nil cannot be in a list (write size == nil)"),
        ("name == path", .typeMismatch, 9,
         "expected a value after '==' for attribute 'name' (a string in quotes), found 'path' (comparing two attributes is not supported)"),
        ("kind == Document", .typeMismatch, 9, "expected a value after '==' for attribute 'kind' (a string in quotes: 'Document', "
            + "'Folder' or 'Symlink'), found 'Document' (put strings in quotes)"),
        ("downloadingStatus == current", .typeMismatch, 22, "expected a value after '==' for attribute 'downloadingStatus' "
            + "(a string in quotes: 'notDownloaded', 'downloaded' or 'current'), found 'current' (put strings in quotes)"),
        ("size == Document", .typeMismatch, 9, "expected a value after '==' for attribute 'size' (a number or size like 10MB), found 'Document'"),
        ("modified > 5", .typeMismatch, 12,
         "expected a value after '>' for attribute 'modified' (a date like 2026-01-01 or 2026-01-01T12:30:00Z), found number 5"),
        ("percentUploaded > 1MB", .typeMismatch, 19,
         "expected a value after '>' for attribute 'percentUploaded' (a number from 0 to 100), found size 1MB (sizes are for attribute 'size')"),
        ("isUploaded == 1", .typeMismatch, 15, "expected a value after '==' for attribute 'isUploaded' (true or false), found number 1"),
        ("name == true", .typeMismatch, 9, "expected a value after '==' for attribute 'name' (a string in quotes), found 'true'"),
        ("uploadingError == 5", .typeMismatch, 19,
         "expected a value after '==' for attribute 'uploadingError' (a string in quotes or nil), found number 5"),
        ("size IN {1, 'a'}", .typeMismatch, 13,
         "expected a value in the list after 'IN' for attribute 'size' (a number or size like 10MB), found string 'a'"),
        ("name BEGINSWITH 5", .typeMismatch, 17,
         "expected a value after 'BEGINSWITH' for attribute 'name' (a string in quotes), found number 5"),
        ("name LIKE", .syntax, 10, "expected a value after 'LIKE' for attribute 'name' (a string in quotes)"),
        ("name == 'é' AND size == 'x'", .typeMismatch, 25,
         "expected a value after '==' for attribute 'size' (a number or size like 10MB), found string 'x'"),
        ("name == 'e\u{301}' AND size == 'x'", .typeMismatch, 25,
         "expected a value after '==' for attribute 'size' (a number or size like 10MB), found string 'x'"),
        ("size BETWEEN {1, 'x'}", .typeMismatch, 18,
         "expected a value as the upper bound of 'BETWEEN' for attribute 'size' (a number or size like 10MB), found string 'x'"),
        // the attribute on the right
        ("'a' BEGINSWITH name", .syntax, 5, "'BEGINSWITH' needs the attribute on its left (write: attribute BEGINSWITH 'a')"),
        ("'a' IN name", .syntax, 5, "'IN' needs the attribute on its left (write: attribute IN 'a')"),
        ("5 size", .syntax, 3, "expected a comparison operator after the value 5 (a value on the left is compared with an attribute "
            + "on the right), found 'size'"),
        ("5 < 6", .syntax, 5, "expected an attribute after '<' (a value on the left is compared with an attribute), found number 6"),
        ("5 <", .syntax, 4, "expected an attribute after '<' (a value on the left is compared with an attribute)"),
        // lists
        ("name IN 'a'", .syntax, 9, "expected '{' after 'IN' for attribute 'name' (a list of values like {1, 2} or {}), found string 'a'"),
        ("name IN {'a' 'b'}", .syntax, 14, "expected ',' or '}' in the list after 'IN', found string 'b'"),
        ("name IN {'a',}", .syntax, 14, "expected a value in the list after 'IN' for attribute 'name' (a string in quotes), found '}'"),
        ("name IN {'a'", .syntax, 13, "expected ',' or '}' in the list after 'IN'"),
        ("size BETWEEN 1", .syntax, 14, "expected '{' after 'BETWEEN' for attribute 'size' (two values like {1, 10}), found number 1"),
        ("size BETWEEN {1}", .syntax, 16, "expected ',' after the lower bound of 'BETWEEN', found '}'"),
        ("size BETWEEN {1, 2, 3}", .syntax, 19, "expected '}' after the upper bound of 'BETWEEN' (it takes exactly two values), found ','"),
        ("size BETWEEN {1 2}", .syntax, 17, "expected ',' after the lower bound of 'BETWEEN', found number 2"),
        ("size BETWEEN {}", .syntax, 15,
         "expected a value as the lower bound of 'BETWEEN' for attribute 'size' (a number or size like 10MB), found '}'"),
        // characters and modifiers
        ("name & size", .syntax, 6, "unexpected character '&' (write && or AND)"),
        ("name | size", .syntax, 6, "unexpected character '|' (write || or OR)"),
        ("name # 1", .syntax, 6, "unexpected character '#'"),
        ("name ~ 'x'", .syntax, 6, "unexpected character '~'"),
        ("size == -", .syntax, 9, "unexpected character '-'"),
        ("size == 5.", .syntax, 10, "unexpected character '.'"),
        ("name == 'x' \u{7}", .syntax, 13, "unexpected character U+0007"),
        ("name ==[x] 'a'", .syntax, 8, "unknown modifier '[x]' (expected [c], [d] or [cd])"),
        ("name ==[cc] 'a'", .syntax, 8, "unknown modifier '[cc]' (expected [c], [d] or [cd])"),
        ("name ==[] 'a'", .syntax, 8, "unknown modifier '[]' (expected [c], [d] or [cd])"),
        ("name ==[c 'a'", .syntax, 8, "expected a modifier [c], [d] or [cd] after '['"),
        // literals
        ("name == 'abc", .invalidLiteral, 9, "unterminated string: no closing ' for this quote"),
        ("name == \"abc", .invalidLiteral, 9, "unterminated string: no closing \" for this quote"),
        (#"name == 'abc\'"#, .invalidLiteral, 9, "unterminated string: no closing ' for this quote"),
        (#"name == 'a\u{D800}'"#, .invalidLiteral, 11,
         #"invalid escape '\u{D800}' in a string (expected \u{hex} or \uXXXX naming a Unicode scalar other than U+0000)"#),
        (#"name == 'a\u{}'"#, .invalidLiteral, 11,
         #"invalid escape '\u{}' in a string (expected \u{hex} or \uXXXX naming a Unicode scalar other than U+0000)"#),
        (#"name == 'a\uZZ'"#, .invalidLiteral, 11,
         #"invalid escape '\u' in a string (expected \u{hex} or \uXXXX naming a Unicode scalar other than U+0000)"#),
        (#"name == 'a\u{0}'"#, .invalidLiteral, 11,
         #"invalid escape '\u{0}' in a string (expected \u{hex} or \uXXXX naming a Unicode scalar other than U+0000)"#),
        ("name == 'a\u{0}'", .invalidLiteral, 11, "a string may not contain the NUL character (U+0000)"),
        ("size > 10XB", .invalidLiteral, 8, "unknown size unit 'XB' in '10XB' (expected B, KB, MB, GB, TB, KiB, MiB, GiB or TiB)"),
        ("size > 1e", .invalidLiteral, 8, "unknown size unit 'e' in '1e' (expected B, KB, MB, GB, TB, KiB, MiB, GiB or TiB)"),
        ("size > 99e999", .invalidLiteral, 8, "number 99e999 is out of range"),
        ("size > 1e300TB", .invalidLiteral, 8, "size 1e300TB is out of range"),
        ("modified > 2026-13-01", .invalidLiteral, 12, "invalid date '2026-13-01': month 13 is not 01–12"),
        ("modified > 2026-02-30", .invalidLiteral, 12, "invalid date '2026-02-30': day 30 is not in month 2 of 2026"),
        ("modified > 2026-01-01T25:00Z", .invalidLiteral, 12, "invalid date '2026-01-01T25:00Z': hour 25 is not 00–23"),
        ("modified > 2026-01-01T12:60Z", .invalidLiteral, 12, "invalid date '2026-01-01T12:60Z': minute 60 is not 00–59"),
        ("modified > 2026-01-01T12:30:60Z", .invalidLiteral, 12, "invalid date '2026-01-01T12:30:60Z': second 60 is not 00–59"),
        ("modified > 2026-01-01T12:30:00.1234567890Z", .invalidLiteral, 12,
         "invalid date '2026-01-01T12:30:00.1234567890Z': at most 9 digits of a second (nanoseconds)"),
        ("modified > 2026-01-01T12:30:00.Z", .invalidLiteral, 12, "invalid date '2026-01-01T12:30:00.Z': expected digits after '.'"),
        ("modified > 2026-01-01T12", .invalidLiteral, 12, "invalid date '2026-01-01T12': expected ':' after the hour"),
        ("modified > 2026-01-01X", .invalidLiteral, 12, "invalid date '2026-01-01X': expected 'T' and a time after the date"),
        ("modified > 2026-01-01T10:00+25:00", .invalidLiteral, 12, "invalid date '2026-01-01T10:00+25:00': zone offset out of range"),
        ("modified > 2026-01-01T10:00Z+1", .invalidLiteral, 12, "invalid date '2026-01-01T10:00Z+1': unexpected text after the time"),
        ("modified > 3000-01-01", .invalidLiteral, 12,
         "invalid date '3000-01-01': out of range (dates run from 1677-09-21 to 2262-04-11)"),
        ("modified > '2026-1-1'", .invalidLiteral, 12,
         "invalid date '2026-1-1' for attribute 'modified': the month must have two digits"),
        // patterns
        (#"name LIKE 'a\\'"#, .invalidPattern, 11,
         #"LIKE pattern 'a\\' ends with a '\' that escapes nothing (write \\\\ in the string for a literal backslash)"#),
        ("name MATCHES '('", .invalidPattern, 14, "MATCHES pattern '(' cannot be used: it is not a valid regular expression"),
        ("name MATCHES[c] 'a{2,1}'", .invalidPattern, 17, "MATCHES pattern 'a{2,1}' cannot be used: it is not a valid regular expression"),
        ("name MATCHES '(?x)a#c'", .invalidPattern, 14,
         "MATCHES pattern '(?x)a#c' cannot be used: it ends inside a comment, so it cannot be anchored"),
    ]

    @Test(arguments: cases)
    func reports(query: String, kind: Kind, position: Int, message: String) {
        do {
            let predicate = try MetadataPredicate(parsing: query)
            Issue.record("\(query.debugDescription) parsed as \(predicate)")
        } catch {
            #expect(error.kind == kind, "\(query.debugDescription): \(error)")
            #expect(error.position == position, "\(query.debugDescription): \(error)")
            #expect(error.message == message, "\(query.debugDescription)")
            #expect(error.description == "position \(position): \(message)")
        }
    }

    @Test func theBriefsExamples() {
        #expect(throws: MetadataPredicateError(.syntax, position: 8,
                                               "expected a value after '==' for attribute 'size' (a number or size like 10MB)")) {
            try MetadataPredicate(parsing: "size ==")
        }
        #expect(throws: MetadataPredicateError(.unknownAttribute, position: 1, "unknown attribute 'nmae' (did you mean 'name'?)")) {
            try MetadataPredicate(parsing: "nmae LIKE '*.pdf'")
        }
    }

    @Test func nestingIsLimited() throws {
        let depth = 50
        let deep = String(repeating: "(", count: depth) + "isUploaded" + String(repeating: ")", count: depth)
        #expect(try MetadataPredicate(parsing: deep) == MetadataPredicate(parsing: "isUploaded"))
        let tooDeep = String(repeating: "(", count: depth + 1) + "isUploaded" + String(repeating: ")", count: depth + 1)
        #expect(throws: MetadataPredicateError(.tooComplex, position: 52,
                                               "the predicate nests parentheses and NOT more than 50 levels deep")) {
            try MetadataPredicate(parsing: tooDeep)
        }
        #expect(throws: MetadataPredicateError.self) { try MetadataPredicate(parsing: String(repeating: "(", count: 100_000)) }
        #expect(throws: MetadataPredicateError.self) { try MetadataPredicate(parsing: String(repeating: "NOT ", count: 100_000) + "isUploaded") }
        #expect(throws: MetadataPredicateError.self) { try MetadataPredicate(parsing: String(repeating: "!", count: 100_000) + "isUploaded") }
    }

    @Test func valuesAreLimited() throws {
        let list = (0..<10_000).map(String.init).joined(separator: ", ")
        _ = try MetadataPredicate(parsing: "size IN {\(list)}")
        #expect(throws: MetadataPredicateError.self) { try MetadataPredicate(parsing: "size IN {\(list), 1}") }
        do {
            _ = try MetadataPredicate(parsing: "size IN {\(list)} OR size == 1")
            Issue.record("10,001 values parsed")
        } catch {
            #expect(error.kind == .tooComplex)
            #expect(error.message == "the predicate has more than 10000 values")
        }
    }

    @Test func comparisonsAreLimited() throws {
        let chain = Array(repeating: "size > 1", count: 1_000).joined(separator: " AND ")
        let predicate = try MetadataPredicate(parsing: chain)
        guard case .and(let terms) = predicate else { Issue.record("not an AND"); return }
        #expect(terms.count == 1_000)
        #expect(predicate.evaluate(MetadataSnapshot([.size: .integer(2)])))
        #expect(throws: MetadataPredicateError(.tooComplex, position: 13_000, "the predicate has more than 1000 comparisons")) {
            try MetadataPredicate(parsing: chain + " OR isUploaded")
        }
        #expect(throws: MetadataPredicateError.self) {
            try MetadataPredicate(parsing: Array(repeating: "TRUEPREDICATE", count: 1_001).joined(separator: " OR "))
        }
    }
}
