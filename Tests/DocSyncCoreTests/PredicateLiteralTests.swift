import DocSyncCore
import Testing

/// Literals, as the parser reads them: each query and the predicate's canonical text.
@Suite struct PredicateLiteralTests {
    static let cases: [(String, String)] = [
        // sizes: decimal and binary units, any case, fractions
        ("size == 10MB", "size == 10000000"), ("size == 1.5GB", "size == 1500000000"), ("size == 512KiB", "size == 524288"),
        ("size == 4KB", "size == 4000"), ("size == 100B", "size == 100"), ("size == 1TiB", "size == 1099511627776"),
        ("size == 2TB", "size == 2000000000000"), ("size == 3GiB", "size == 3221225472"), ("size == 1.5MiB", "size == 1572864"),
        ("size == 10mb", "size == 10000000"), ("size == 1kib", "size == 1024"), ("size == 1.3KiB", "size == 1331.2"),
        ("size == 0.5B", "size == 0.5"), ("size == -2KB", "size == -2000"), ("size == 8000000TiB", "size == 8796093022208000000"),
        ("size == 9000000TiB", "size == 9.895604649984e+18"), ("size == 1e3KB", "size == 1000000.0"),
        // numbers
        ("size == -5", "size == -5"), ("size == 3.25", "size == 3.25"), ("size == 0", "size == 0"), ("size == -0", "size == 0"),
        ("size > 99999999999999999999", "size > 1e+20"), ("size == 9223372036854775807", "size == 9223372036854775807"),
        ("size == 1e3", "size == 1000.0"), ("size == 2.5E-1", "size == 0.25"), ("percentUploaded == 50", "percentUploaded == 50.0"),
        ("percentDownloaded BETWEEN {0, 99.5}", "percentDownloaded BETWEEN {0.0, 99.5}"),
        // dates: midnight UTC for a bare date, offsets, fractions
        ("modified > 2026-01-01", "modified > 2026-01-01T00:00:00Z"),
        ("modified > 2026-01-01T12:30Z", "modified > 2026-01-01T12:30:00Z"),
        ("modified > 2026-01-01T12:30", "modified > 2026-01-01T12:30:00Z"),
        ("modified > 2026-01-01T12:30:00+02:00", "modified > 2026-01-01T10:30:00Z"),
        ("modified > 2026-01-01T00:30:00+02:00", "modified > 2025-12-31T22:30:00Z"),
        ("modified > 2026-01-01T12:30:00-0530", "modified > 2026-01-01T18:00:00Z"),
        ("modified > 2026-01-01T12:30:00+02", "modified > 2026-01-01T10:30:00Z"),
        ("modified > 2026-01-01T12:30:00.5Z", "modified > 2026-01-01T12:30:00.5Z"),
        ("modified > 2026-01-01T12:30:00.000000001Z", "modified > 2026-01-01T12:30:00.000000001Z"),
        ("modified > 2024-02-29", "modified > 2024-02-29T00:00:00Z"), ("modified > 2000-02-29", "modified > 2000-02-29T00:00:00Z"),
        ("modified > 1969-12-31T23:59:59.999999999Z", "modified > 1969-12-31T23:59:59.999999999Z"),
        ("modified > 1677-09-22", "modified > 1677-09-22T00:00:00Z"), ("modified > 2262-04-11", "modified > 2262-04-11T00:00:00Z"),
        ("modified > '2026-01-01T12:30:00Z'", "modified > 2026-01-01T12:30:00Z"),
        // strings: either quote, escapes; unknown escapes are kept for LIKE and MATCHES
        (#"name == "a\"b""#, #"name == "a\"b""#), (#"name == 'it\'s'"#, #"name == "it's""#),
        (#"name == 'a\u{1F600}b'"#, "name == \"a😀b\""), (#"name == '\u00e9'"#, "name == \"é\""), (#"name == 'tab\there'"#, #"name == "tab\there""#),
        (#"name == 'a\nb\rc'"#, #"name == "a\nb\rc""#), (#"name == 'back\\slash'"#, #"name == "back\\slash""#),
        (#"name LIKE 'a\*b'"#, #"name LIKE "a\\*b""#), (#"name MATCHES '\d+'"#, #"name MATCHES "\\d+""#),
        ("name == 'x\u{7}'", #"name == "x\u{7}""#), ("name == \"it's\"", "name == \"it's\""), ("name == ''", "name == \"\""),
        // booleans and nil
        ("isUploaded == YES", "isUploaded == true"), ("isUploaded == no", "isUploaded == false"), ("isUploaded == True", "isUploaded == true"),
        ("isUploaded", "isUploaded == true"), ("downloadingError == NULL", "downloadingError == nil"),
        ("downloadingError != Nil", "downloadingError != nil"),
        // operators, spelled every way, and the attribute on the right
        ("size = 1", "size == 1"), ("size <> 1", "size != 1"), ("size =< 1", "size <= 1"), ("size => 1", "size >= 1"),
        ("5MB < size", "size > 5000000"), ("5 >= size", "size <= 5"), ("'a' != name", "name != \"a\""), ("nil == uploadingError", "uploadingError == nil"),
        ("name beginswith 'a'", "name BEGINSWITH \"a\""), ("name EndsWith[DC] 'a'", "name ENDSWITH[cd] \"a\""), ("name contains [c] 'a'", "name CONTAINS[c] \"a\""),
        ("name IN {}", "name IN {}"), ("name in { 'a' , 'b' }", "name IN {\"a\", \"b\"}"),
    ]

    @Test(arguments: cases)
    func reads(query: String, canonical: String) throws {
        let predicate = try MetadataPredicate(parsing: query)
        #expect(predicate.description == canonical, "\(query)")
        #expect(try MetadataPredicate(parsing: canonical) == predicate)
    }

    @Test(arguments: [
        ("isUploaded OR isUploading AND isDownloading", "isUploaded == true OR isUploading == true AND isDownloading == true"),
        ("(isUploaded OR isUploading) AND isDownloading", "(isUploaded == true OR isUploading == true) AND isDownloading == true"),
        ("NOT isUploaded AND isUploading", "NOT isUploaded == true AND isUploading == true"),
        ("NOT (isUploaded AND isUploading)", "NOT (isUploaded == true AND isUploading == true)"),
        ("isUploaded AND (isUploading AND isDownloading)", "isUploaded == true AND isUploading == true AND isDownloading == true"),
        ("(isUploaded OR isUploading) OR (isDownloading OR isUploaded)",
         "isUploaded == true OR isUploading == true OR isDownloading == true OR isUploaded == true"),
        ("isUploaded || isUploading && !isDownloading", "isUploaded == true OR isUploading == true AND NOT isDownloading == true"),
        ("NOT NOT isUploaded", "NOT NOT isUploaded == true"),
        ("(isUploaded AND isUploading) OR (isDownloading AND NOT isUploaded)",
         "isUploaded == true AND isUploading == true OR isDownloading == true AND NOT isUploaded == true"),
        ("NOT (isUploaded OR isUploading) AND ((isDownloading))", "NOT (isUploaded == true OR isUploading == true) AND isDownloading == true"),
    ])
    func groups(query: String, canonical: String) throws {
        let predicate = try MetadataPredicate(parsing: query)
        #expect(predicate.description == canonical)
        #expect(try MetadataPredicate(parsing: canonical) == predicate)
    }

    @Test func precedenceBuildsTheRightTree() throws {
        let a = try MetadataPredicate(parsing: "isUploaded"), b = try MetadataPredicate(parsing: "isUploading")
        let c = try MetadataPredicate(parsing: "isDownloading")
        #expect(try MetadataPredicate(parsing: "isUploaded OR isUploading AND isDownloading") == .or([a, .and([b, c])]))
        #expect(try MetadataPredicate(parsing: "NOT isUploaded AND isUploading") == .and([.not(a), b]))
        #expect(try MetadataPredicate(parsing: "isUploaded AND isUploading OR isDownloading") == .or([.and([a, b]), c]))
        #expect(try MetadataPredicate(parsing: "NOT (isUploaded OR isUploading)") == .not(.or([a, b])))
    }

    @Test(arguments: [
        "1970-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "1969-12-31T23:59:59.999999999Z", "2262-04-11T23:47:16.854775807Z",
        "1677-09-21T00:12:43.145224192Z", "2000-02-29T12:00:00.1Z", "1900-03-01T00:00:00Z",
    ])
    func datesRoundTrip(text: String) throws {
        let timestamp = try ISO8601Timestamp.parse(text)
        #expect(ISO8601Timestamp.format(timestamp) == text)
    }

    @Test func datesAreExact() throws {
        #expect(try ISO8601Timestamp.parse("1970-01-01").nanosecondsSince1970 == 0)
        #expect(try ISO8601Timestamp.parse("2026-01-01").nanosecondsSince1970 == 1_767_225_600_000_000_000)
        #expect(try ISO8601Timestamp.parse("2262-04-11T23:47:16.854775807Z").nanosecondsSince1970 == .max)
        #expect(try ISO8601Timestamp.parse("1677-09-21T00:12:43.145224192Z").nanosecondsSince1970 == .min)
        #expect(throws: ISO8601Timestamp.Invalid.self) { try ISO8601Timestamp.parse("2262-04-11T23:47:16.854775808Z") }
        #expect(throws: ISO8601Timestamp.Invalid.self) { try ISO8601Timestamp.parse("1677-09-21T00:12:43.145224191Z") }
        // Every day of four centuries survives a round trip through days and back.
        for day in stride(from: Int64(-106_751), through: 106_750, by: 7) {
            let text = ISO8601Timestamp.format(Timestamp(nanosecondsSince1970: day * 86_400_000_000_000))
            #expect(try ISO8601Timestamp.parse(text).nanosecondsSince1970 == day * 86_400_000_000_000, "\(text)")
        }
    }

    @Test func numbersCompareExactly() {
        let big: Int64 = 9_007_199_254_740_993  // 2^53 + 1: no Double has it
        #expect(MetadataNumber.compare(.integer(big), .double(9_007_199_254_740_992)) == 1)
        #expect(MetadataNumber.compare(.double(9_007_199_254_740_992), .integer(big)) == -1)
        #expect(MetadataNumber.compare(.integer(3), .double(3)) == 0)
        #expect(MetadataNumber.compare(.integer(3), .double(3.5)) == -1)
        #expect(MetadataNumber.compare(.integer(-3), .double(-3.5)) == 1)
        #expect(MetadataNumber.compare(.integer(.max), .double(9.3e18)) == -1)
        #expect(MetadataNumber.compare(.integer(.min), .double(-9.3e18)) == 1)
        #expect(MetadataNumber.compare(.integer(.min), .double(-9_223_372_036_854_775_808)) == 0)
        #expect(MetadataNumber.compare(.integer(0), .double(.nan)) == nil)
        #expect(MetadataNumber.compare(.double(.infinity), .integer(.max)) == 1)
    }

    @Test(arguments: [
        ("ÉCOLE", "c", "école"), ("ÉCOLE", "d", "ECOLE"), ("ÉCOLE", "cd", "ecole"), ("e\u{301}t\u{E9}", "d", "ete"),
        ("ABC-xyz_09", "c", "abc-xyz_09"), ("ABC", "d", "ABC"), ("Ångström", "", "Ångström"), ("Øresund", "cd", "øresund"),
        ("ǅ", "c", "ǆ"), ("İ", "cd", "i"), ("한국어", "d", "한국어"), ("Ελληνικά", "cd", "ελληνικα"),
    ])
    func folds(text: String, flags: String, folded: String) throws {
        let options = try #require(ComparisonOptions(flags: flags))
        #expect(Array(TextFolding.fold(text, options).unicodeScalars) == Array(folded.unicodeScalars))
    }
}
