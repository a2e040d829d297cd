import DocSyncCore
@testable import DocSyncEngine
import DocSyncTestSupport
import Testing

/// `LocalIndex.items(matching:)` and `metadata(matching:)`: what they return, in what order,
/// and that every connection of the index can run any predicate.
@Suite struct PredicateQueryTests {
    let directory: TemporaryDirectory
    let index: LocalIndex

    init() throws {
        directory = try TemporaryDirectory("docsync-query")
        index = try LocalIndex(url: directory.url.appendingPathComponent("index.sqlite"))
        let rows: [(String, Int64, IndexItem.Pending, String?)] = [
            ("b/Report.PDF", 2_000_000, .none, nil), ("a/résumé.pdf", 10, .none, ""), ("c.txt", 0, .none, "Quota exceeded"),
            ("gone.pdf", 5, .delete, nil), ("a/notes", 0, .save, nil),
        ]
        try index.write { db in
            for (number, (path, size, pending, error)) in rows.enumerated() {
                let stat = FileStat(kind: .file, size: size, modified: Timestamp(nanosecondsSince1970: Int64(number)), inode: UInt64(number),
                                    device: 1, mode: 0o644)
                var item = IndexItem(recordName: "r\(number)", path: RelativePath(path), kind: path == "a/notes" ? .folder : .document, stat: stat)
                item.size = size
                item.pending = pending
                item.status.uploadingError = error
                try item.insert(db)
            }
        }
    }

    func paths(_ query: String, limit: Int? = nil) throws -> [String] {
        try index.items(matching: MetadataPredicate(parsing: query), limit: limit).map(\.path.string)
    }

    @Test func selectsLiveItemsInPathOrder() throws {
        #expect(try paths("TRUEPREDICATE") == ["a/notes", "a/résumé.pdf", "b/Report.PDF", "c.txt"])
        #expect(try paths("name LIKE '*.pdf'") == ["a/résumé.pdf"])
        #expect(try paths("name LIKE[cd] '*.pdf'") == ["a/résumé.pdf", "b/Report.PDF"])
        #expect(try paths("name ==[d] 'resume.pdf'") == ["a/résumé.pdf"])
        #expect(try paths("size > 1MB OR kind == 'Folder'") == ["a/notes", "b/Report.PDF"])
        #expect(try paths("name MATCHES[c] 'report\\.pdf'") == ["b/Report.PDF"])
        #expect(try paths("uploadingError == nil") == ["a/notes", "b/Report.PDF"])
        #expect(try paths("NOT uploadingError BEGINSWITH 'Q'") == ["a/notes", "a/résumé.pdf", "b/Report.PDF"])
        #expect(try paths("uploadingError ENDSWITH 'd'") == ["c.txt"])
        #expect(try paths("NOT uploadingError ENDSWITH 'd'") == ["a/notes", "a/résumé.pdf", "b/Report.PDF"])
        #expect(try paths("uploadingError == ''") == ["a/résumé.pdf"])
        #expect(try paths("path BEGINSWITH 'a/'") == ["a/notes", "a/résumé.pdf"])
    }

    @Test func limitsTheResult() throws {
        #expect(try paths("TRUEPREDICATE", limit: 2) == ["a/notes", "a/résumé.pdf"])
        #expect(try paths("TRUEPREDICATE", limit: 0) == [])
        #expect(try paths("TRUEPREDICATE", limit: -3) == [])
        #expect(try paths("TRUEPREDICATE", limit: 100).count == 4)
    }

    @Test func metadataIsTheRowsAttributes() throws {
        let predicate = try MetadataPredicate(parsing: "NOT name LIKE 'x*'")
        let items = try index.items(matching: predicate)
        let metadata = try index.metadata(matching: predicate)
        #expect(metadata == items.map { MetadataItem($0) })
        for (item, light) in zip(items, metadata) {
            #expect(light.attributes == MetadataSnapshot(of: item))
            #expect(light.attributes[.name] == .string(item.path.name))
            #expect(light.attributes[.modified] == .date(item.modified))
        }
    }

    /// A share's attributes (SPEC §11) are the folder's, the same for every item, in SQLite
    /// and in `evaluate` alike.
    @Test(arguments: [
        nil,
        SharedFolderFacts(role: .participant, permission: .readOnly, ownerName: "alice", accountName: "bob"),
        SharedFolderFacts(role: .participant, permission: .readWrite, ownerName: "o'brien", accountName: "bob"),
        SharedFolderFacts.owner("alice"),
    ] as [SharedFolderFacts?])
    func aSharesAttributesAreTheFolders(_ sharing: SharedFolderFacts?) throws {
        let all = try index.read { db in try db.items(under: nil) }.filter { $0.pending != .delete }
        for text in ["isShared == true", "isShared == false", "role == 'participant'", "role == nil", "permissions == 'readOnly'",
                     "ownerName == 'alice'", "ownerName ==[c] \"O'BRIEN\"", "ownerName BEGINSWITH 'o' AND permissions != 'readOnly'",
                     "NOT isShared == true AND name LIKE '*.pdf'"] {
            let predicate = try MetadataPredicate(parsing: text)
            let selected = try index.metadata(matching: predicate, sharing: sharing).map(\.recordName).sorted()
            let expected = all.filter { predicate.evaluate(MetadataItem($0, sharing: sharing)) }.map(\.recordName).sorted()
            #expect(selected == expected, "\(text) for \(String(describing: sharing))")
        }
        let shared = try index.metadata(matching: try MetadataPredicate(parsing: "isShared == true"), sharing: sharing)
        #expect(shared.count == (sharing == nil ? 0 : all.count))
        #expect(shared.allSatisfy { $0.sharing == sharing })
    }

    @Test func everyConnectionHasTheFunctions() async throws {
        // Readers run concurrently on several pool connections; each needs the functions.
        let query = try MetadataPredicate(parsing: "name LIKE[c] '*.PDF' AND path MATCHES[d] '.*resume.*'")
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { try self.index.items(matching: query).count } }
            for try await count in group { #expect(count == 1) }
        }
        #expect(try index.write { db in try db.items(matching: query).count } == 1)
    }

    /// The largest predicates the parser accepts run in SQLite: its parser stack (about 100
    /// entries) and expression depth (1,000) are not exceeded by the compiled SQL. (Measured:
    /// the stack overflows near 70 levels of the worst nesting, the depth near 2,000
    /// comparisons; the parser stops at 50 and 1,000.)
    @Test(arguments: [
        // 50 levels of parentheses, alternating OR and AND
        { (level: Int, inner: String) in level % 2 == 0 ? "(size != \(level) OR \(inner))" : "(size != \(level) AND \(inner))" },
        // 25 × NOT ( … AND … ), with nine terms a level (the SQL chunks chains of eight)
        { (level: Int, inner: String) in
            level % 2 == 0 ? inner : "NOT (\((0..<9).map { "size != \($0 + level)" }.joined(separator: " AND ")) AND \(inner))"
        },
        // 50 levels of twenty terms: the 1,000 comparisons at the deepest
        { (level: Int, inner: String) in
            "(\((0..<19).map { "size != \($0 + level)" }.joined(separator: level % 2 == 0 ? " OR " : " AND ")) \(level % 2 == 0 ? "OR" : "AND") \(inner))"
        },
        // NOT NOT NOT …
        { (level: Int, inner: String) in "NOT \(inner)" },
    ] as [@Sendable (Int, String) -> String])
    func theLargestPredicatesRun(wrap: @Sendable (Int, String) -> String) throws {
        var text = "uploadingError ENDSWITH[cd] 'Ed'"
        for level in 0..<50 { text = wrap(level, text) }
        let predicate = try MetadataPredicate(parsing: text)
        let expected = try index.read { db in try db.items(under: nil) }.filter { $0.pending != .delete && predicate.evaluate($0) }
        #expect(try index.items(matching: predicate).map(\.recordName).sorted() == expected.map(\.recordName).sorted())
    }

    @Test func theMostValuesRun() throws {
        // 10,000 values (the parser's limit) are 10,000 SQL variables.
        let values = (1...10_000).map(String.init).joined(separator: ", ")
        #expect(try paths("size IN {\(values)}") == ["a/résumé.pdf"])
        let chain = (0..<1_000).map { "size != \($0 + 1_000)" }.joined(separator: " AND ")
        #expect(try paths(chain).count == 4)
    }
}
