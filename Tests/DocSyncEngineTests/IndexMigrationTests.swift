import DocSyncCore
@testable import DocSyncEngine
import DocSyncPlatform
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
        try old.write { db in for item in items { try item.insertBeforeV16(db) } }
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
        for released in [true, false] {
            let sql = IndexCounts.pendingUploadsSQL(deletionsReleased: released)
            let (count, bytes, plan) = try index.read { db in
                let row = try Row.fetchOne(db, sql: sql)!
                let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }
                return (row[0] as Int, row[1] as Int64, plan)
            }
            // The save and, unless the brake holds it, the deletion (without bytes); not the
            // settled item, nor the one that failed.
            #expect(count == (released ? 2 : 1))
            #expect(bytes == 10)
            #expect(plan.contains { $0.contains("COVERING INDEX item_pending") }, "\(plan)")
        }
        // In record-name order (v6), so that settling a run of items touches one stretch of it.
        let columns = try index.read { db in try Row.fetchAll(db, sql: "PRAGMA index_info(item_pending)").map { $0["name"] as String } }
        #expect(columns == ["pending", "uploadingError", "recordName", "size"])
    }

    @Test func aVersionFourIndexFindsItsChunkLocationsByKey() throws {
        let base = try TemporaryDirectory("docsync-migration")
        let items = [document("r1", "a.bin", size: 300, pending: .none), document("r2", "b.bin", size: 100, pending: .none)]
        let url = try oldIndex(in: base, upTo: "v4: pending items counted from their index", items: items)
        let digests = (0..<4).map { SHA256Digest(hashing: Data("chunk \($0)".utf8)) }
        // a.bin: chunks 0, 1, 2 (100 bytes each); b.bin: chunk 1.
        try DatabaseQueue(path: url.path).write { db in
            for (name, digest, offset) in [("r1", digests[0], 0), ("r1", digests[1], 100), ("r1", digests[2], 200), ("r2", digests[1], 0)] {
                try db.execute(sql: "INSERT INTO chunkLocation (digest, recordName, offset, length) VALUES (?, ?, ?, 100)",
                               arguments: [Data(digest.bytes), name, offset])
            }
        }
        let index = try LocalIndex(url: url)
        let places = try index.read { db in try db.chunkLocations(of: digests) }
        #expect(places[digests[0]]?.map(\.path.string) == ["a.bin"])
        #expect(places[digests[1]]?.map(\.path.string).sorted() == ["a.bin", "b.bin"])
        #expect(places[digests[2]]?.first?.offset == 200)
        #expect(places[digests[3]] == nil)
        #expect(try index.read { db in try db.recordedChunks(of: "r1") }.map(\.digest) == Array(digests.prefix(3)))
        let plan = try index.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT offset FROM chunkLocation WHERE digestKey = ? AND digest = ?", arguments: [0, Data()])
                .map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("INDEX chunkLocation_by_key") }, "\(plan)")
        // Deleting an item still takes its locations with it.
        try index.write { db in try db.deleteItem(named: "r1") }
        #expect(try index.read { db in try db.chunkLocations(of: digests) }.keys.sorted() == [digests[1]])
    }

    @Test func aVersionNineIndexKeepsItsUnansweredSaveAndRemembersMoreVersions() throws {
        let base = try TemporaryDirectory("docsync-migration")
        let url = try oldIndex(in: base, upTo: "v9: items the engine moved aside, records a refetch has not seen yet", items: [])
        let first = Data("first version".utf8), second = Data("second version".utf8)
        try DatabaseQueue(path: url.path).write { db in
            try db.execute(sql: "INSERT INTO uncertainSave (recordName, record) VALUES ('r1', ?)", arguments: [first])
        }
        let index = try LocalIndex(url: url)
        try index.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO uncertainSave (recordName, record) VALUES ('r1', ?), ('r1', ?)", arguments: [second, first])
        }
        let kept = try index.read { db in try Data.fetchAll(db, sql: "SELECT record FROM uncertainSave WHERE recordName = 'r1' ORDER BY record") }
        #expect(kept == [first, second])
    }

    @Test func aPageOfPendingItemsIsFoundWithoutWalkingTheFolder() throws {
        let base = try TemporaryDirectory("docsync-migration")
        let items = (0..<50).map { document("r\($0)", "d\($0 / 10)/f\($0)", pending: $0 % 7 == 0 ? .save : .none) }
        let index = try LocalIndex(url: oldIndex(in: base, upTo: "v11: items a folder's move carried along", items: items))
        for released in [true, false] {
            let sql = Sender.pendingPageSQL(condition: FolderEngine.sendableCondition(deletionsReleased: released))
            let (found, plan) = try index.read { db in
                (try Row.fetchAll(db, sql: sql, arguments: ["", "", ""]).map { $0["recordName"] as String },
                 try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: ["", "", ""]).map { $0["detail"] as String })
            }
            // The pending ones only, in path order.
            #expect(found == ["r0", "r7", "r14", "r21", "r28", "r35", "r42", "r49"])
            #expect(plan.contains { $0.contains("INDEX item_sendable") }, "\(plan)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
        }
    }

    @Test func namesOfOneExtensionAreFoundWithoutWalkingTheFolder() throws {
        let base = try TemporaryDirectory("docsync-migration")
        let names = ["a.jpg", "b.JPG", "c.jpg.txt", "jpg", "d.tar.jpg", "e.jpeg", "f.txt", "g.", "h.jpg"]
        var items = names.enumerated().map { document("r\($0.offset)", "dir/\($0.element)", pending: .none) }
        items[8].pending = .delete
        let index = try LocalIndex(url: oldIndex(in: base, upTo: "v12: pending items found in path order", items: items))
        for (text, expected) in [("name LIKE '*.jpg'", ["a.jpg", "d.tar.jpg"]), ("name ENDSWITH '.jpg'", ["a.jpg", "d.tar.jpg"]),
                                 ("name LIKE 'd*.tar.jpg'", ["d.tar.jpg"]), ("NOT name LIKE '*.jpg'", ["b.JPG", "c.jpg.txt", "e.jpeg", "f.txt", "g.", "jpg"])] {
            let predicate = try MetadataPredicate(parsing: text)
            let (sql, arguments) = Database.query("recordName", predicate, limit: nil)
            let (found, plan) = try index.read { db in
                (try db.metadata(matching: predicate).map(\.path.name),
                 try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String })
            }
            #expect(found.sorted() == expected, "\(text)")
            if !text.hasPrefix("NOT") { #expect(plan.contains { $0.contains("INDEX item_name_extension") }, "\(text): \(plan)") }
        }
    }

    @Test func anIndexMigratedByANewerVersionIsRefused() throws {
        let base = try TemporaryDirectory("docsync-migration")
        let url = try oldIndex(in: base, upTo: "v6: pending items indexed in record-name order", items: [])
        try DatabaseQueue(path: url.path).write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from a later version')")
        }
        let error = #expect(throws: SyncError.self) { try LocalIndex(url: url) }
        #expect(error?.code == .invalidArguments)
        #expect(error?.message.contains("newer version of docsync") == true, "\(String(describing: error))")
    }
}

extension IndexItem {
    /// Inserts this item into an index migrated to v15 at most, without the columns
    /// migration v16 added.
    func insertBeforeV16(_ db: Database) throws {
        let columns = IndexItem.boundColumns.filter { $0.name != "lastEditorName" }
        let placeholders = Array(repeating: "?", count: columns.count + 1).joined(separator: ", ")
        let statement = try db.directStatement(sql: "INSERT INTO item (\(columns.map(\.name).joined(separator: ", ")), recordName) VALUES (\(placeholders))")
        for (position, column) in columns.enumerated() { column.bind(self, statement, Int32(position + 1)) }
        statement.bind(Int32(columns.count + 1), recordName)
        try statement.execute()
    }
}
