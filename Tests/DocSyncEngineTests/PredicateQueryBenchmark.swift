import DocSyncCore
@testable import DocSyncEngine
import DocSyncTestSupport
import Foundation
import GRDB
import Testing

/// Times metadata queries over 100,000 index rows; prints figures and asserts only that SQL and
/// the evaluator agree. Opt-in, best in a release build:
///
///     DOCSYNC_QUERY_BENCH=1 swift test -c release -Xswiftc -enable-testing --filter PredicateQueryBenchmark
///
/// Each figure is the median of 7 runs. It runs once on the schema as it is, then again with a
/// covering index of the attribute columns (a candidate migration, created here only).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["DOCSYNC_QUERY_BENCH"] != nil))
struct PredicateQueryBenchmark {
    static let attributeColumns = "recordName, path, kind, size, mtime, downloadingStatus, isDownloading, percentDownloaded, "
        + "isUploading, isUploaded, percentUploaded, downloadingError, uploadingError, hasUnresolvedConflicts"

    @Test func hundredThousandItems() throws {
        let directory = try TemporaryDirectory("docsync-query-bench")
        let index = try LocalIndex(url: directory.url.appendingPathComponent("index.sqlite"))
        var random = SeededRandom(seed: 42)
        let extensions = [".pdf", ".txt", ".md", ".jpg", ".png", ".docx", ".swift", ".json", ".csv", ".key"]
        try index.write { db in
            for n in 0..<100_000 {
                let name = "file-\(n)-\(Int.random(in: 0..<1000, using: &random))" + extensions.randomElement(using: &random)!
                let size = Int64.random(in: 0..<3_000_000, using: &random)
                let modified = Timestamp(nanosecondsSince1970: Int64.random(in: 1_577_836_800_000_000_000...1_800_000_000_000_000_000, using: &random))
                let stat = FileStat(kind: .file, size: size, modified: modified, inode: UInt64(n), device: 1, mode: 0o644)
                var item = IndexItem(recordName: "record-\(n)", path: RelativePath("dir\(n % 500)/sub\(n % 7)/\(name)"), kind: .document, stat: stat)
                // Rows as a synced document has them: digest, asset and acknowledged record.
                let digest = SHA256Digest(hashing: Data("\(n)".utf8))
                let chunks = (0..<Int.random(in: 1...3, using: &random)).map { _ in ChunkRef(digest: digest, length: 65_536) }
                item.digest = digest
                item.asset = AssetReference(depth: 0, entries: chunks, chunkCount: chunks.count, size: size, contentDigest: digest)
                item.acked = Record(id: RecordID(zone: ZoneID("Docs"), recordName: item.recordName), type: .document, changeTag: ChangeTag("1"),
                                    path: item.path, size: size, modified: modified, mode: 0o644, contentDigest: digest, asset: item.asset,
                                    lastModifiedBy: "laptop")
                item.pending = .none
                item.needsRead = false
                item.status.isUploaded = true
                try item.insert(db)
            }
        }
        let clock = ContinuousClock()
        func median(_ body: () throws -> Int) rethrows -> (Duration, Int) {
            var times: [Duration] = []
            var count = 0
            for _ in 0..<7 { times.append(try clock.measure { count = try body() }) }
            return (times.sorted()[3], count)
        }
        func milliseconds(_ duration: Duration) -> String {
            String(format: "%.1f ms", Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1e3)
        }
        let everything = try index.metadata(matching: .constant(true))
        for covering in [false, true] {
            if covering {
                try index.write { db in
                    try db.execute(sql: "CREATE INDEX item_attributes ON item(path, name, size, mtime, kind, downloadingStatus, isDownloading, "
                        + "percentDownloaded, isUploading, isUploaded, percentUploaded, downloadingError, uploadingError, hasUnresolvedConflicts, pending)")
                }
            }
            for text in ["name LIKE '*.pdf'", "size > 1MB AND modified > 2026-01-01", "name LIKE[c] '*.PDF'", "name MATCHES '.*\\.pdf'"] {
                let predicate = try MetadataPredicate(parsing: text)
                let (sql, arguments) = PredicateSQL.compile(predicate) { $0.itemColumn(sharing: nil) }
                let values = StatementArguments(arguments.map { argument -> (any DatabaseValueConvertible)? in
                    switch argument {
                    case .text(let text): text
                    case .integer(let integer): integer
                    case .double(let double): double
                    case .null: nil
                    }
                })
                let (items, itemCount) = try median { try index.items(matching: predicate).count }
                let (metadata, metadataCount) = try median { try index.metadata(matching: predicate).count }
                let (count, countCount) = try median {
                    try index.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item WHERE pending <> 2 AND (\(sql))", arguments: values)! }
                }
                // The attribute columns in path order, read without building items.
                let (inOrder, inOrderCount) = try median {
                    try index.read { db in
                        let rows = try Row.fetchCursor(db, sql: "SELECT \(Self.attributeColumns) FROM item WHERE pending <> 2 AND (\(sql)) ORDER BY path",
                                                       arguments: values)
                        var count = 0
                        while try rows.next() != nil { count += 1 }
                        return count
                    }
                }
                let expected = everything.filter { predicate.evaluate($0) }.count
                #expect([itemCount, metadataCount, countCount, inOrderCount].allSatisfy { $0 == expected })
                print("""
                    \(covering ? "with a covering index" : "schema as is"): \(text) — \(expected) of 100000 match: \
                    items(matching:) \(milliseconds(items)), metadata(matching:) \(milliseconds(metadata)), \
                    SQL count(*) \(milliseconds(count)), SQL rows ORDER BY path \(milliseconds(inOrder))
                    """)
            }
        }
    }
}
