import DocSyncCore
import Testing

/// The reference semantics: each query against eight items, by which items it selects.
@Suite struct PredicateEvaluatorTests {
    static func date(_ text: String) -> Timestamp { try! ISO8601Timestamp.parse(text) }

    static func item(
        _ name: String, path: String? = nil, size: Int64, modified: String, kind: String = "Document",
        status: String = "current", isDownloading: Bool = false, percentDownloaded: Double = 100,
        isUploading: Bool = false, isUploaded: Bool, percentUploaded: Double,
        downloadingError: String? = nil, uploadingError: String? = nil, conflicts: Bool = false
    ) -> MetadataSnapshot {
        MetadataSnapshot([
            .name: .string(name), .path: .string(path ?? name), .size: .integer(size), .modified: .date(date(modified)),
            .kind: .string(kind), .downloadingStatus: .string(status), .isDownloading: .bool(isDownloading),
            .percentDownloaded: .double(percentDownloaded), .isUploading: .bool(isUploading), .isUploaded: .bool(isUploaded),
            .percentUploaded: .double(percentUploaded), .downloadingError: downloadingError.map(MetadataValue.string) ?? .null,
            .uploadingError: uploadingError.map(MetadataValue.string) ?? .null, .hasUnresolvedConflicts: .bool(conflicts),
        ])
    }

    /// Short names for the items, used by the cases below.
    static let items: [(String, MetadataSnapshot)] = [
        ("resume", item("Résumé Final.pdf", path: "work/cv/Résumé Final.pdf", size: 2_500_000, modified: "2026-03-15T10:00:00Z",
                        isUploaded: true, percentUploaded: 100)),
        ("report", item("report-0042.txt", path: "reports/report-0042.txt", size: 4_096, modified: "2025-12-31T23:59:59.999999999Z",
                        status: "downloaded", isUploading: true, isUploaded: false, percentUploaded: 42.5,
                        uploadingError: "Quota exceeded")),
        ("x", item("x.pdf", size: 10_000_000, modified: "2026-01-01", status: "notDownloaded", isDownloading: true,
                   percentDownloaded: 12.5, isUploaded: true, percentUploaded: 100, downloadingError: "network unreachable",
                   conflicts: true)),
        ("photos", item("Photos", size: 0, modified: "2024-06-01T08:00:00Z", kind: "Folder", isUploaded: true, percentUploaded: 100)),
        ("star", item("a*b?.txt", path: "Photos/a*b?.txt", size: 1_048_576, modified: "2026-01-01T00:00:00.000000001Z",
                      isUploaded: false, percentUploaded: 0)),
        ("cafe", item("cafe\u{301}.md", path: "notes/cafe\u{301}.md", size: 512, modified: "2026-02-01T00:00:00Z",
                      isUploaded: true, percentUploaded: 100)),
        ("link", item("link", path: "Photos/link", size: 12, modified: "2023-01-01T00:00:00Z", kind: "Symlink",
                      isUploaded: true, percentUploaded: 100)),
        ("draft", item("[draft] PDF.PDF", path: "docs/[draft] PDF.PDF", size: 999_999, modified: "2026-06-30T12:00:00+02:00",
                       isUploaded: false, percentUploaded: 0)),
    ]

    static let all = ["resume", "report", "x", "photos", "star", "cafe", "link", "draft"]
    static func allBut(_ excluded: String...) -> [String] { all.filter { !excluded.contains($0) } }
    static let uploaded = ["resume", "x", "photos", "cafe", "link"]
    static let notUploaded = ["report", "star", "draft"]
    static let documents = ["resume", "report", "x", "star", "cafe", "draft"]

    static let cases: [(String, [String])] = [
        // == != with and without modifiers; strings compare by scalars
        ("name == 'x.pdf'", ["x"]), (#"name = "x.pdf""#, ["x"]), ("name != 'x.pdf'", allBut("x")), ("name <> 'x.pdf'", allBut("x")),
        ("name == 'X.PDF'", []), ("name ==[c] 'X.PDF'", ["x"]), ("name ==[c] 'RÉSUMÉ FINAL.PDF'", ["resume"]),
        ("name == 'Resume Final.pdf'", []), ("name ==[d] 'Resume Final.pdf'", ["resume"]), ("name ==[cd] 'resume final.PDF'", ["resume"]),
        ("name == 'café.md'", []), (#"name == 'cafe\u{301}.md'"#, ["cafe"]), ("name ==[d] 'cafe.md'", ["cafe"]),
        ("name ==[d] 'café.md'", ["cafe"]), ("name ==[dc] 'CAFÉ.MD'", ["cafe"]), ("name !=[c] 'X.PDF'", allBut("x")),
        // ordering of strings: UTF-8 byte order
        ("name < 'b'", ["resume", "photos", "star", "draft"]), ("name >= 'r'", ["report", "x"]),
        ("name >[c] 'r'", ["resume", "report", "x"]), ("name BETWEEN {'a', 'm'}", ["star", "cafe", "link"]),
        ("name BETWEEN[c] {'p', 'q'}", ["photos"]), ("name <= 'Photos'", ["photos"]),
        // numbers and sizes
        ("size > 1MB", ["resume", "x", "star"]), ("size > 1MiB", ["resume", "x"]), ("size >= 1MiB", ["resume", "x", "star"]),
        ("size == 1048576", ["star"]), ("size == 1MiB", ["star"]), ("size == 1024KiB", ["star"]),
        ("size < 4KB", ["photos", "cafe", "link"]), ("size <= 4KiB", ["report", "photos", "cafe", "link"]),
        ("size == 2.5MB", ["resume"]), ("size == 0.5KiB", ["cafe"]), ("size == 512B", ["cafe"]), ("size == 10mb", ["x"]),
        ("size BETWEEN {4096, 1MiB}", ["report", "star", "draft"]), ("size IN {0, 12, 512}", ["photos", "cafe", "link"]),
        ("size IN {}", []), ("NOT size IN {}", all), ("size > -1", all), ("size > 4095.5", ["resume", "report", "x", "star", "draft"]),
        ("size == 4096.0", ["report"]), ("size < 1.5GB", all), ("size >= 1TB", []), ("size > 1e6", ["resume", "x", "star"]),
        ("size == 0.001KB", []), ("size BETWEEN {1MiB, 1MB}", []),
        // the attribute on the right
        ("10MB <= size", ["x"]), ("1MB > size", ["report", "photos", "cafe", "link", "draft"]), ("0 == size", ["photos"]),
        ("'x.pdf' ==[c] name", ["x"]),
        // percentages
        ("percentUploaded == 42.5", ["report"]), ("percentUploaded > 42", ["resume", "report", "x", "photos", "cafe", "link"]),
        ("percentDownloaded < 100", ["x"]), ("percentDownloaded == 12.5", ["x"]), ("percentDownloaded BETWEEN {10, 20}", ["x"]),
        ("percentUploaded IN {0, 42.5}", ["report", "star", "draft"]), ("percentUploaded == 100", uploaded),
        // dates, to the nanosecond
        ("modified > 2026-01-01", ["resume", "star", "cafe", "draft"]), ("modified >= 2026-01-01", ["resume", "x", "star", "cafe", "draft"]),
        ("modified == 2026-01-01T00:00:00Z", ["x"]), ("modified == 2026-01-01T00:00:00.000000001Z", ["star"]),
("modified < 2026-01-01T00:00:00Z", ["report", "photos", "link"]),
        ("modified == 2026-06-30T12:00:00+02:00", ["draft"]), ("modified == 2026-06-30T10:00:00Z", ["draft"]),
        ("modified == 2026-06-30T05:00:00-0500", ["draft"]), ("modified == 2026-06-30t10:00z", ["draft"]),
        ("modified BETWEEN {2025-12-31T23:59:59.999999999Z, 2026-01-01T00:00:00.000000001Z}", ["report", "x", "star"]),
        ("modified > '2026-03-01'", ["resume", "draft"]), ("modified IN {2026-01-01, 2026-02-01}", ["x", "cafe"]),
        ("2026-01-01 > modified", ["report", "photos", "link"]), ("modified < 1970-01-01", []),
        // kind and downloadingStatus
        ("kind == 'Folder'", ["photos"]), ("kind == 'Symlink'", ["link"]), ("kind IN {'Folder', 'Symlink'}", ["photos", "link"]),
        ("kind ==[c] 'document'", documents), ("downloadingStatus == 'notDownloaded'", ["x"]),
        ("downloadingStatus != 'current'", ["report", "x"]),
        // booleans, also bare
        ("isUploaded == true", uploaded), ("isUploaded == YES", uploaded), ("isUploaded = no", notUploaded), ("isUploaded", uploaded),
        ("NOT isUploaded", notUploaded), ("isUploaded != FALSE", uploaded), ("isDownloading", ["x"]), ("isUploading == true", ["report"]),
        ("hasUnresolvedConflicts", ["x"]), ("isUploaded IN {false}", notUploaded), ("true == isUploaded", uploaded),
        ("isUploaded IN {true, false}", all),
        // nil
        ("downloadingError == nil", allBut("x")), ("downloadingError != nil", ["x"]), ("downloadingError == NULL", allBut("x")),
        ("uploadingError != nil", ["report"]), ("uploadingError == 'Quota exceeded'", ["report"]),
        ("uploadingError != 'Quota exceeded'", []), ("NOT uploadingError == 'Quota exceeded'", allBut("report")),
        ("uploadingError CONTAINS[c] 'quota'", ["report"]), ("NOT (uploadingError CONTAINS 'x')", allBut("report")),
        ("uploadingError BEGINSWITH ''", ["report"]), ("uploadingError LIKE '*'", ["report"]), ("uploadingError MATCHES '.*'", ["report"]),
        ("uploadingError < 'z'", ["report"]), ("nil == downloadingError", allBut("x")), ("name != nil", all), ("name == nil", []),
        ("uploadingError IN {'Quota exceeded'}", ["report"]), ("NOT uploadingError IN {'other'}", all),
        ("downloadingError BETWEEN {'a', 'z'}", ["x"]),
        // BEGINSWITH, ENDSWITH, CONTAINS
        ("name BEGINSWITH 'report'", ["report"]), ("name BEGINSWITH 'Report'", []), ("name BEGINSWITH[c] 'REPORT'", ["report"]),
        ("name BEGINSWITH 'Ré'", ["resume"]), ("name BEGINSWITH 'Re'", []), ("name BEGINSWITH[d] 'Re'", ["resume"]),
        ("name BEGINSWITH ''", all), ("name ENDSWITH '.pdf'", ["resume", "x"]), ("name ENDSWITH[c] '.pdf'", ["resume", "x", "draft"]),
        ("name ENDSWITH ''", all), (#"name ENDSWITH 'e\u{301}.md'"#, ["cafe"]), ("name ENDSWITH 'é.md'", []),
        ("name ENDSWITH[d] 'e.md'", ["cafe"]), ("name ENDSWITH 'a much longer suffix than any name'", []),
        ("name CONTAINS '*'", ["star"]), ("name CONTAINS ' '", ["resume", "draft"]), ("name CONTAINS[cd] 'SUME'", ["resume"]),
        ("name CONTAINS ''", all), ("path CONTAINS '/'", ["resume", "report", "star", "cafe", "link", "draft"]),
        ("path BEGINSWITH 'Photos/'", ["star", "link"]), ("name CONTAINS[d] 'e.'", ["cafe"]),
        // LIKE: anchored globs
        ("name LIKE '*.pdf'", ["resume", "x"]), ("name LIKE 'pdf'", []), ("name LIKE '*pdf'", ["resume", "x"]),
        ("name LIKE 'x'", []), ("name LIKE 'x.pd'", []), ("name LIKE[c] '*.pdf'", ["resume", "x", "draft"]),
        ("name LIKE 'report-????.txt'", ["report"]), ("name LIKE 'report-???.txt'", []), ("name LIKE 'report-?????.txt'", []),
        (#"name LIKE 'a\*b\?.txt'"#, ["star"]), (#"name LIKE 'a\*c*'"#, []), ("name LIKE 'a?b?.txt'", ["star"]),
        (#"name LIKE '\a\*\b*'"#, ["star"]), ("name LIKE '[draft]*'", ["draft"]), ("name LIKE '[d]*'", []), ("name LIKE '*'", all),
        ("name LIKE '?????'", ["x"]), ("name LIKE 'caf?.md'", []), ("name LIKE 'caf??.md'", ["cafe"]), ("name LIKE[d] 'caf?.md'", ["cafe"]),
        ("name LIKE[cd] 'CAF?.MD'", ["cafe"]), ("path LIKE 'Photos/*'", ["star", "link"]), ("path LIKE '*/*/*'", ["resume"]),
        ("name LIKE 'R*'", ["resume"]), (#"name LIKE '*\\\\*'"#, []), ("name LIKE '**.txt'", ["report", "star"]),
        ("name LIKE ''", []), ("path LIKE 'Photos*'", ["photos", "star", "link"]),
        // MATCHES: anchored regular expressions
        (#"name MATCHES '.*\.pdf'"#, ["resume", "x"]), ("name MATCHES 'pdf'", []), ("name MATCHES 'x'", []),
        (#"name MATCHES 'report-\d{4}\.txt'"#, ["report"]), ("name MATCHES '.*PDF'", ["draft"]),
        ("name MATCHES[c] '.*pdf'", ["resume", "x", "draft"]), (#"name MATCHES 'a|x\.pdf'"#, ["x"]),
        ("name MATCHES[d] 'Resume.*'", ["resume"]), (#"name MATCHES[d] 'cafe\.md'"#, ["cafe"]), (#"name MATCHES '(?i)X\.PDF'"#, ["x"]),
        (#"name MATCHES '\Qa*b?.txt'"#, ["star"]), ("name MATCHES 'x|x.pdf'", ["x"]), ("name MATCHES[cd] 'RÉSUMÉ.*'", ["resume"]),
        // precedence: NOT > AND > OR, parentheses
        ("kind == 'Folder' OR kind == 'Symlink' AND size > 100", ["photos"]),
        ("(kind == 'Folder' OR kind == 'Symlink') AND size > 100", []),
        ("NOT isUploaded AND size > 1MB", ["star"]), ("NOT (isUploaded AND size > 1MB)", allBut("resume", "x")),
        ("! isUploaded && size > 1MB || kind == 'Folder'", ["star", "photos"]), ("NOT NOT isUploaded", uploaded),
        ("isUploaded AND (kind == 'Folder' OR name LIKE '*.md')", ["photos", "cafe"]),
        ("size < 1KB OR size > 5MB AND NOT isDownloading", ["photos", "cafe", "link"]),
        ("(size < 1KB OR size > 5MB) AND NOT isDownloading", ["photos", "cafe", "link"]),
        ("(size < 1KB OR size > 5MB) AND isDownloading", ["x"]), ("((((isDownloading))))", ["x"]),
        ("TRUEPREDICATE", all), ("FALSEPREDICATE", []), ("NOT FALSEPREDICATE", all), ("truepredicate AND name == 'x.pdf'", ["x"]),
        ("FALSEPREDICATE OR name == 'link'", ["link"]),
        // keywords in any case
        ("name like '*.pdf' and not isDownloading", ["resume"]), ("name Like[C] '*.PDF' Or size In {0}", ["resume", "x", "photos", "draft"]),
        ("name IN[c] {'X.PDF', 'photos'}", ["x", "photos"]), ("name IN {'x.pdf', 'nothing'}", ["x"]),
        ("name beginswith 'x' || name ENDSWITH 'k'", ["x", "link"]),
    ]

    @Test(arguments: cases)
    func selects(query: String, expected: [String]) throws {
        let predicate = try MetadataPredicate(parsing: query)
        let selected = Self.items.filter { predicate.evaluate($0.1) }.map(\.0)
        #expect(Set(selected) == Set(expected), "\(query) → \(predicate)")
        // The description is the predicate again.
        #expect(try MetadataPredicate(parsing: predicate.description) == predicate, "\(predicate)")
    }

    @Test func thereAreEnoughCases() {
        #expect(Self.cases.count >= 100)
    }

    @Test func aValueOfTheWrongTypeNeverMatches() throws {
        let item = MetadataSnapshot([.name: .integer(3), .size: .string("3"), .isUploaded: .integer(1)])
        for query in ["name == '3'", "name != '3'", "size == 3", "size != 3", "isUploaded", "NOT isUploaded == false"] {
            let predicate = try MetadataPredicate(parsing: query)
            #expect(predicate.evaluate(item) == query.hasPrefix("NOT"), "\(query)")
        }
    }
}
