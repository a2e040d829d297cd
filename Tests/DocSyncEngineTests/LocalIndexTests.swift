import DocSyncCore
@testable import DocSyncEngine
import DocSyncTestSupport
import Foundation
import GRDB
import Testing

@Suite("Local index")
struct LocalIndexTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("docsync-index") }

    func sampleItem() -> IndexItem {
        let stat = FileStat(kind: .file, size: 12, modified: Timestamp(nanosecondsSince1970: 1_700_000_000_123_456_789), inode: 42, device: 1, mode: 0o640)
        var item = IndexItem(recordName: "abc123", path: RelativePath("dir/report.pdf"), kind: .document, stat: stat)
        item.digest = SHA256Digest(hashing: Data("hello world!".utf8))
        item.acked = Record(id: RecordID(zone: ZoneID("Docs"), recordName: "abc123"), type: .folder, changeTag: ChangeTag("7"),
                            path: RelativePath("dir/old.pdf"), modified: item.modified, mode: 0o600, lastModifiedBy: "laptop")
        item.status.uploadingError = "too big"
        return item
    }

    @Test func anItemSurvivesAReopen() throws {
        let url = directory.url.appendingPathComponent("index.sqlite")
        let item = sampleItem()
        try LocalIndex(url: url).write { db in try item.insert(db) }
        let reopened = try LocalIndex(url: url)
        let back = try reopened.read { db in try db.item(named: "abc123") }
        #expect(back == item)
        #expect(try reopened.read { db in try db.item(at: RelativePath("dir/report.pdf")) }?.recordName == "abc123")
    }

    /// Items are decoded by column position: the table's columns must be `IndexItem.columns`,
    /// and every field must come back from `SELECT *`, with or without leading columns.
    @Test func everyFieldComesBackByPosition() throws {
        let index = try LocalIndex(url: directory.url.appendingPathComponent("index.sqlite"))
        let names = try index.read { db in try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('item') ORDER BY cid") }
        #expect(names == IndexItem.columns)
        #expect(IndexItem.boundColumns.map(\.name) == Array(IndexItem.columns.dropFirst()))
        var item = sampleItem()
        let digest = try #require(item.digest)
        item.asset = AssetReference(depth: 0, entries: [ChunkRef(digest: digest, length: 12)], chunkCount: 1, size: 12, contentDigest: digest)
        item.symlinkTarget = "../elsewhere"
        item.pending = .delete
        item.needsRead = false
        item.chunksUploaded = true
        item.revision = 9
        item.status = ItemTransferStatus()
        item.status.downloadingStatus = "downloaded"
        item.status.isDownloading = true
        item.status.percentDownloaded = 12.5
        item.status.isUploading = true
        item.status.isUploaded = true
        item.status.percentUploaded = 37.5
        item.status.downloadingError = "no space"
        item.status.uploadingError = "too big"
        item.status.hasUnresolvedConflicts = true
        try index.write { db in try item.insert(db) }
        let plain = try index.read { db in try IndexItem.fetchOne(db, sql: "SELECT * FROM item") }
        let prefixed = try index.read { db in
            try Row.fetchOne(db, sql: "SELECT \(IndexItem.Fingerprint.columns), * FROM item").map { try IndexItem(row: $0) }
        }
        #expect(plain == item)
        #expect(prefixed == item)
        // An update writes every column: values become NULL, NULLs become values.
        var changed = item
        changed.path = RelativePath("moved/élan.txt")
        changed.kind = .symlink
        changed.size = -1
        changed.modified = Timestamp(nanosecondsSince1970: -7)
        changed.inode = UInt64.max
        changed.mode = 0o777
        changed.digest = nil
        changed.asset = nil
        changed.symlinkTarget = nil
        changed.acked = nil
        changed.pending = .save
        changed.needsRead = true
        changed.chunksUploaded = false
        changed.revision = 10
        changed.status = ItemTransferStatus()
        changed.status.downloadingError = nil
        changed.status.uploadingError = "still too big"
        try index.write { db in try changed.update(db) }
        #expect(try index.read { db in try db.item(named: item.recordName) } == changed)
        try index.write { db in try item.update(db) }
        #expect(try index.read { db in try db.item(named: item.recordName) } == item)
        // So does an update of the columns that differ, when every one of them does.
        try index.write { db in try changed.update(db, from: item) }
        #expect(try index.read { db in try db.item(named: item.recordName) } == changed)
        try index.write { db in try item.update(db, from: changed) }
        #expect(try index.read { db in try db.item(named: item.recordName) } == item)
    }

    /// An update from the row as it was read writes the columns the caller changed and
    /// leaves the others as the row holds them now; with no change it writes nothing.
    @Test func anUpdateFromTheStoredRowWritesOnlyTheColumnsThatDiffer() throws {
        let index = try LocalIndex(url: directory.url.appendingPathComponent("index.sqlite"))
        let stored = sampleItem()
        try index.write { db in try stored.insert(db) }
        // Another write changes a column after `stored` was read.
        try index.write { db in
            try db.execute(sql: "UPDATE item SET percentDownloaded = 50 WHERE recordName = ?", arguments: [stored.recordName])
        }
        var read = stored
        read.digest = SHA256Digest(hashing: Data("hello again".utf8))
        read.status.isUploading = true
        read.path = RelativePath("dir/renamed.pdf")
        try index.write { db in try read.update(db, from: stored) }
        var expected = read
        expected.status.percentDownloaded = 50
        #expect(try index.read { db in try db.item(named: stored.recordName) } == expected)
        #expect(try index.read { db in try db.item(at: RelativePath("dir/renamed.pdf")) }?.recordName == stored.recordName)
        let written = try index.write { db -> Int in
            let before = db.totalChangesCount
            try read.update(db, from: read)
            return db.totalChangesCount - before
        }
        #expect(written == 0)
    }

    /// The engine builds the fingerprint of a row it has just written from the item instead of
    /// reading it back: both must agree, for every kind of row.
    @Test func aWrittenItemsFingerprintMatchesTheStoredRow() throws {
        let index = try LocalIndex(url: directory.url.appendingPathComponent("index.sqlite"))
        let folderStat = FileStat(kind: .directory, size: 4096, modified: Timestamp(nanosecondsSince1970: -5), inode: UInt64.max - 1, device: 1, mode: 0o755)
        var folder = IndexItem(recordName: "folder1", path: RelativePath("ä/b"), kind: .folder, stat: folderStat)
        folder.pending = .none
        var deleted = sampleItem()
        deleted.recordName = "gone"
        deleted.digest = nil
        deleted.pending = .delete
        deleted.revision = 41
        var updated = sampleItem()
        for item in [sampleItem(), folder, deleted] { try index.write { db in try item.insert(db) } }
        updated.path = RelativePath("elsewhere/report.pdf")
        updated.needsRead = false
        updated.acked = nil
        try index.write { db in try updated.update(db) }
        for item in [updated, folder, deleted] {
            let read = try index.read { db in
                try Row.fetchOne(db, sql: "SELECT \(IndexItem.Fingerprint.columns) FROM item WHERE recordName = ?", arguments: [item.recordName])
            }
            let stored = try #require(read.map(IndexItem.Fingerprint.init(row:)))
            #expect(stored == IndexItem.Fingerprint(item), "\(item.recordName)")
            #expect(try index.read { db in try stored.isCurrent(db, item.recordName) }, "\(item.recordName)")
            var changed = item
            changed.revision += 1
            #expect(try index.read { db in try IndexItem.Fingerprint(changed).isCurrent(db, item.recordName) } == false, "\(item.recordName)")
            #expect(try index.read { db in try stored.isCurrent(db, "no such item") } == false)
        }
    }

    /// A saved item settles only if nothing changed it since it was sent; one changed again
    /// stays pending, based on the record the server now has.
    @Test func settlingASavedItemHonoursItsRevision() throws {
        let index = try LocalIndex(url: directory.url.appendingPathComponent("index.sqlite"))
        var sent = sampleItem()
        sent.pending = .save
        sent.revision = 3
        sent.status.isUploading = true
        var editedAgain = sampleItem()
        editedAgain.recordName = "edited"
        editedAgain.path = RelativePath("dir/edited.pdf")
        editedAgain.pending = .save
        editedAgain.revision = 5
        try index.write { db in
            try sent.insert(db)
            try editedAgain.insert(db)
        }
        func saved(_ item: IndexItem, tag: String) -> DocSyncCore.Record {
            Record(id: RecordID(zone: ZoneID("Docs"), recordName: item.recordName), type: .document, changeTag: ChangeTag(tag),
                   path: item.path, size: item.size, modified: item.modified, mode: item.mode, lastModifiedBy: "laptop")
        }
        try index.write { db in
            try db.settleItem(named: sent.recordName, acked: saved(sent, tag: "8"), ifAt: 3)
            try db.settleItem(named: editedAgain.recordName, acked: saved(editedAgain, tag: "9"), ifAt: 4)
            try db.settleItem(named: "never stored", acked: saved(sent, tag: "10"), ifAt: 1)
        }
        let settled = try #require(try index.read { db in try db.item(named: sent.recordName) })
        #expect(settled.pending == .none)
        #expect(settled.acked?.changeTag == ChangeTag("8"))
        #expect(settled.chunksUploaded && settled.status.isUploaded && !settled.status.isUploading)
        #expect(settled.status.uploadingError == nil)
        let pending = try #require(try index.read { db in try db.item(named: editedAgain.recordName) })
        #expect(pending.pending == .save)
        #expect(pending.revision == 5)
        #expect(pending.acked?.changeTag == ChangeTag("9"))
        #expect(!pending.status.isUploaded)
        #expect(try index.read { db in try IndexItem.fetchCount(db) } == 2)
    }

    @Test func itemsUnderAPathIncludeOnlyThatSubtree() throws {
        let index = try LocalIndex(url: directory.url.appendingPathComponent("index.sqlite"))
        let stat = FileStat(kind: .file, size: 1, modified: Timestamp(nanosecondsSince1970: 1), inode: 1, device: 1, mode: 0o644)
        try index.write { db in
            for (n, p) in ["a", "a/x", "a/y/z", "ab", "a-b", "b"].enumerated() {
                try IndexItem(recordName: "r\(n)", path: RelativePath(p), kind: .document, stat: stat).insert(db)
            }
        }
        let under = try index.read { db in try db.items(under: RelativePath("a")) }.map(\.path.string).sorted()
        #expect(under == ["a", "a/x", "a/y/z"])
        #expect(try index.read { db in try db.items(under: nil) }.count == 6)
    }

    @Test func theTokenChangesInTheSameTransactionAsItems() throws {
        let index = try LocalIndex(url: directory.url.appendingPathComponent("index.sqlite"))
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try index.write { db in
                try db.setEngineValue("changeToken", Data("t1".utf8))
                try sampleItem().insert(db)
                throw Abort()
            }
        }
        #expect(try index.read { db in try db.engineValue("changeToken") } == nil)
        #expect(try index.read { db in try db.item(named: "abc123") } == nil)
    }
}
