import DocSyncCore
@testable import DocSyncEngine
import DocSyncTestSupport
import Foundation
import GRDB
import Testing

/// An index written by an older daemon opens, migrates and answers queries.
@Suite struct IndexMigrationTests {
    /// An index file in `base` migrated only up to `migration`, holding `items`.
    func oldIndex(in base: TemporaryDirectory, upTo migration: String, items: [IndexItem]) throws -> URL {
        let url = base.url.appendingPathComponent("index.sqlite")
        let old = try DatabaseQueue(path: url.path)
        try IndexSchema.migrator.migrate(old, upTo: migration)
        try old.write { db in for item in items { try item.insert(db) } }
        return url
    }

    /// A document item of `size` bytes at `path`.
    func document(_ name: String, _ path: String, size: Int64 = 10, pending: IndexItem.Pending) -> IndexItem {
        var item = IndexItem(recordName: name, path: RelativePath(path), kind: .document,
                             stat: FileStat(kind: .file, size: size, modified: .now, inode: 1, device: 0, mode: 0o644))
        item.pending = pending
        return item
    }

    @Test func aVersionOneIndexGainsTheMetadataIndexAndKeepsItsItems() throws {
        let base = try TemporaryDirectory("docsync-migration")
        let items = [("r1", "a/report.pdf"), ("r2", "a/notes.txt"), ("r3", "b.pdf")].map { document($0, $1, pending: .none) }
        let index = try LocalIndex(url: oldIndex(in: base, upTo: "v1: items, chunk locations, versions, engine state", items: items))
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
        var items = [IndexItem.Pending.save, .delete, .none, .save].enumerated().map { number, pending in
            document("r\(number)", "f\(number)", size: Int64(10 * (number + 1)), pending: pending)
        }
        items[3].status.uploadingError = "unreadable"
        let index = try LocalIndex(url: oldIndex(in: base, upTo: "v3: small indexes for the status counts", items: items))
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

    @Test func anIndexMigratedByANewerVersionIsRefused() throws {
        let base = try TemporaryDirectory("docsync-migration")
        let url = try oldIndex(in: base, upTo: "v4: pending items counted from their index", items: [])
        try DatabaseQueue(path: url.path).write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from a later version')")
        }
        let error = #expect(throws: SyncError.self) { try LocalIndex(url: url) }
        #expect(error?.code == .invalidArguments)
        #expect(error?.message.contains("newer version of docsync") == true, "\(String(describing: error))")
    }
}
