import DocSyncCore
@testable import DocSyncEngine
import DocSyncTestSupport
import Foundation
import GRDB
import Testing

/// An index written by an older daemon opens, migrates and answers queries.
@Suite struct IndexMigrationTests {
    @Test func aVersionOneIndexGainsTheMetadataIndexAndKeepsItsItems() throws {
        let base = try TemporaryDirectory("docsync-migration")
        let url = base.url.appendingPathComponent("index.sqlite")
        do {
            let old = try DatabaseQueue(path: url.path)
            try IndexSchema.migrator.migrate(old, upTo: "v1: items, chunk locations, versions, engine state")
            try old.write { db in
                for (name, path) in [("r1", "a/report.pdf"), ("r2", "a/notes.txt"), ("r3", "b.pdf")] {
                    var item = IndexItem(recordName: name, path: RelativePath(path), kind: .document,
                                         stat: FileStat(kind: .file, size: 10, modified: .now, inode: 1, device: 0, mode: 0o644))
                    item.pending = .none
                    try item.insert(db)
                }
            }
        }
        let index = try LocalIndex(url: url)
        let names = try index.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'item'") }
        #expect(names.contains("item_metadata"))
        #expect(!names.contains("item_by_path"))
        let pdfs = try index.metadata(matching: MetadataPredicate(parsing: "name LIKE '*.pdf'"))
        #expect(pdfs.map(\.path.string) == ["a/report.pdf", "b.pdf"])
        #expect(try index.read { db in try db.item(at: RelativePath("a/notes.txt"))?.recordName } == "r2")
        let details = try index.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT path, size FROM item WHERE pending <> 2 AND name GLOB '*.pdf' ORDER BY path")
                .map { $0["detail"] as String }
        }
        #expect(details.contains { $0.contains("COVERING INDEX item_metadata") }, "\(details)")
    }

    @Test func aVersionThreeIndexCountsPendingUploadsFromTheirIndex() throws {
        let base = try TemporaryDirectory("docsync-migration")
        let url = base.url.appendingPathComponent("index.sqlite")
        do {
            let old = try DatabaseQueue(path: url.path)
            try IndexSchema.migrator.migrate(old, upTo: "v3: small indexes for the status counts")
            try old.write { db in
                for (number, pending) in [IndexItem.Pending.save, .delete, .none, .save].enumerated() {
                    var item = IndexItem(recordName: "r\(number)", path: RelativePath("f\(number)"), kind: .document,
                                         stat: FileStat(kind: .file, size: Int64(10 * (number + 1)), modified: .now, inode: UInt64(number), device: 0, mode: 0o644))
                    item.pending = pending
                    if number == 3 { item.status.uploadingError = "unreadable" }
                    try item.insert(db)
                }
            }
        }
        let index = try LocalIndex(url: url)
        let (count, bytes, plan) = try index.read { db in
            let row = try Row.fetchOne(db, sql: IndexCounts.pendingUploadsSQL)!
            let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + IndexCounts.pendingUploadsSQL).map { $0["detail"] as String }
            return (row[0] as Int, row[1] as Int64, plan)
        }
        // The save and the deletion; not the settled item, nor the one that failed.
        #expect(count == 2)
        #expect(bytes == 10 + 20)
        #expect(plan.contains { $0.contains("COVERING INDEX item_pending") }, "\(plan)")
    }
}
