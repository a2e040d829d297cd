import DocSyncCore
import Testing

/// The SQL a predicate compiles to, and the Swift side of its SQL functions. (That the SQL
/// selects exactly what the evaluator selects is checked against SQLite in
/// DocSyncEngineTests' PredicateSQLAgreementTests.)
@Suite struct PredicateSQLTests {
    static func compile(_ text: String) throws -> (sql: String, arguments: [SQLArgument]) {
        PredicateSQL.compile(try MetadataPredicate(parsing: text)) { attribute in
            attribute == .modified ? "mtime" : attribute.rawValue
        }
    }

    static let cases: [(String, String, [SQLArgument])] = [
        ("name LIKE '*.pdf'", "(name GLOB ?)", [.text("*.pdf")]),
        (#"name LIKE 'a[b]?c\*\?*'"#, "(name GLOB ?)", [.text("a[[]b]?c[*][?]*")]),
        ("name LIKE[c] '*.pdf'", "(docsync_like(name, ?, 'c'))", [.text("*.pdf")]),
        ("path LIKE[cd] 'É*'", "(docsync_like(path, ?, 'cd'))", [.text("É*")]),
        ("size > 1MB AND modified > 2026-01-01", "(size > ?) AND (mtime > ?)",
         [.integer(1_000_000), .integer(1_767_225_600_000_000_000)]),
        ("size == 1.5", "(size = ?)", [.double(1.5)]), ("percentUploaded < 50", "(percentUploaded < ?)", [.double(50)]),
        ("isUploaded", "(isUploaded = ?)", [.integer(1)]), ("isUploaded != NO", "(isUploaded <> ?)", [.integer(0)]),
        ("name ==[cd] 'ÉTÉ'", "(docsync_fold(name, 'cd') = ?)", [.text("ete")]),
        ("name BEGINSWITH 'ré'", "(coalesce(substr(CAST(name AS BLOB), 1, 3) = CAST(? AS BLOB), 0))", [.text("ré")]),
        ("name ENDSWITH[c] '.PDF'", "(coalesce(substr(CAST(docsync_fold(name, 'c') AS BLOB), -4) = CAST(? AS BLOB), 0))",
         [.text(".pdf")]),
        ("name CONTAINS 'x'", "(instr(CAST(name AS BLOB), CAST(? AS BLOB)) > 0)", [.text("x")]),
        ("name BEGINSWITH ''", "1", []), ("uploadingError ENDSWITH ''", "(uploadingError IS NOT NULL)", []),
        ("downloadingError CONTAINS 'x'",
         "(downloadingError IS NOT NULL AND instr(CAST(downloadingError AS BLOB), CAST(? AS BLOB)) > 0)", [.text("x")]),
        ("downloadingError == nil", "(downloadingError IS NULL)", []), ("nil != uploadingError", "(uploadingError IS NOT NULL)", []),
        ("uploadingError != 'x'", "(uploadingError IS NOT NULL AND uploadingError <> ?)", [.text("x")]),
        ("name MATCHES[c] 'a.*'", "(docsync_matches(name, ?, 'c'))", [.text("a.*")]),
        ("size IN {}", "0", []), ("size IN {1, 2.5}", "(size IN (?, ?))", [.integer(1), .double(2.5)]),
        ("kind IN[c] {'FOLDER'}", "(docsync_fold(kind, 'c') IN (?))", [.text("folder")]),
        ("modified BETWEEN {1970-01-01, 1970-01-01T00:00:01Z}", "(mtime BETWEEN ? AND ?)", [.integer(0), .integer(1_000_000_000)]),
        ("NOT isUploaded", "NOT (isUploaded = ?)", [.integer(1)]), ("TRUEPREDICATE", "1", []), ("NOT FALSEPREDICATE", "NOT 0", []),
        ("isUploaded OR isUploading OR isDownloading", "(isUploaded = ?) OR (isUploading = ?) OR (isDownloading = ?)",
         [.integer(1), .integer(1), .integer(1)]),
        // Compound terms first; parentheses only where precedence needs them.
        ("size < 1 AND (size > 2 OR NOT size == 3)", "((size > ?) OR NOT (size = ?)) AND (size < ?)",
         [.integer(2), .integer(3), .integer(1)]),
        ("size < 1 OR size > 2 AND size != 3", "(size > ?) AND (size <> ?) OR (size < ?)", [.integer(2), .integer(3), .integer(1)]),
        ("NOT (size < 1 OR size > 2) AND NOT NOT isUploaded", "NOT ((size < ?) OR (size > ?)) AND NOT NOT (isUploaded = ?)",
         [.integer(1), .integer(2), .integer(1)]),
    ]

    /// With the names' extensions indexed, a pattern or suffix that fixes the extension also
    /// compares it (bound first: it comes first); anything else compiles as without.
    @Test(arguments: [
        ("name LIKE '*.jpg'", "(substr(name, length(rtrim(name, replace(name, '.', ''))) + 1) = ? AND name GLOB ?)", [SQLArgument.text("jpg"), .text("*.jpg")]),
        ("name LIKE 'IMG_*.tar.gz'", "(substr(name, length(rtrim(name, replace(name, '.', ''))) + 1) = ? AND name GLOB ?)", [.text("gz"), .text("IMG_*.tar.gz")]),
        ("name ENDSWITH '.pdf'", "(substr(name, length(rtrim(name, replace(name, '.', ''))) + 1) = ? AND coalesce(substr(CAST(name AS BLOB), -4) = CAST(? AS BLOB), 0))",
         [.text("pdf"), .text(".pdf")]),
        ("name LIKE '*.j?g'", "(name GLOB ?)", [.text("*.j?g")]), ("name LIKE '*.jpg*'", "(name GLOB ?)", [.text("*.jpg*")]),
        ("name LIKE '*.'", "(name GLOB ?)", [.text("*.")]), ("name LIKE '*jpg'", "(name GLOB ?)", [.text("*jpg")]),
        ("name LIKE[c] '*.jpg'", "(docsync_like(name, ?, 'c'))", [.text("*.jpg")]),
        ("name ENDSWITH 'jpg'", "(coalesce(substr(CAST(name AS BLOB), -3) = CAST(? AS BLOB), 0))", [.text("jpg")]),
        ("path LIKE '*.jpg'", "(path GLOB ?)", [.text("*.jpg")]),
    ])
    func anIndexedExtensionIsCompared(_ text: String, _ sql: String, _ arguments: [SQLArgument]) throws {
        let compiled = PredicateSQL.compile(try MetadataPredicate(parsing: text), indexedExtensions: [.name]) { $0.rawValue }
        #expect(compiled.sql == sql, "\(text)")
        #expect(compiled.arguments == arguments, "\(text)")
    }

    @Test(arguments: cases)
    func compiles(query: String, sql: String, arguments: [SQLArgument]) throws {
        let compiled = try Self.compile(query)
        #expect(compiled.sql == sql)
        #expect(compiled.arguments == arguments)
    }

    @Test func longChainsAreWrittenInChunks() throws {
        let chain = (0..<20).map { "size > \($0)" }.joined(separator: " OR ")
        let sql = try Self.compile(chain).sql
        let first = (0..<8).map { _ in "(size > ?)" }.joined(separator: " OR ")
        let chunk = (0..<8).map { _ in "(size > ?)" }.joined(separator: " OR ")
        let last = (0..<4).map { _ in "(size > ?)" }.joined(separator: " OR ")
        #expect(sql == "\(first) OR (\(chunk)) OR (\(last))")
    }

    @Test func theFunctionsAreTheEvaluatorsOwn() throws {
        #expect(try PredicateSQLFunction.fold.call([.text("ÉTÉ"), .text("cd")]) == .text("ete"))
        #expect(try PredicateSQLFunction.fold.call([.text("ÉTÉ"), .text("")]) == .text("ÉTÉ"))
        #expect(try PredicateSQLFunction.fold.call([.null, .text("c")]) == .null)
        #expect(try PredicateSQLFunction.like.call([.text("Résumé.PDF"), .text("res*.pdf"), .text("cd")]) == .integer(1))
        #expect(try PredicateSQLFunction.like.call([.text("Résumé.PDF"), .text("res*.pdf"), .text("c")]) == .integer(0))
        #expect(try PredicateSQLFunction.like.call([.null, .text("*"), .text("")]) == .null)
        #expect(try PredicateSQLFunction.matches.call([.text("report-0042.txt"), .text(#"report-\d+\.txt"#), .text("")]) == .integer(1))
        #expect(try PredicateSQLFunction.matches.call([.text("x report-0042.txt"), .text(#"report-\d+\.txt"#), .text("")]) == .integer(0))
        // The cache tells patterns apart by their scalars, not by canonical equivalence.
        #expect(try PredicateSQLFunction.like(("e\u{301}"), pattern: "é", flags: "") == false)
        #expect(try PredicateSQLFunction.like(("e\u{301}"), pattern: "e\u{301}", flags: "") == true)
        #expect(try PredicateSQLFunction.like(("é"), pattern: "é", flags: "c") == true)
        #expect(try PredicateSQLFunction.like(("e\u{301}"), pattern: "é", flags: "c") == false)
    }

    @Test func misuseIsAnErrorNotATrap() {
        #expect(throws: PredicateSQLFunction.Misuse.self) { try PredicateSQLFunction.fold.call([.text("a")]) }
        #expect(throws: PredicateSQLFunction.Misuse.self) { try PredicateSQLFunction.fold.call([.text("a"), .text("x")]) }
        #expect(throws: PredicateSQLFunction.Misuse.self) { try PredicateSQLFunction.like.call([.text("a"), .integer(1), .text("")]) }
        #expect(throws: PredicateSQLFunction.Misuse.self) { try PredicateSQLFunction.like.call([.text("a"), .text("a\\"), .text("")]) }
        #expect(throws: PredicateSQLFunction.Misuse.self) { try PredicateSQLFunction.matches.call([.text("a"), .text("("), .text("")]) }
    }
}
