import DocSyncCore
@testable import DocSyncEngine
import DocSyncTestSupport
import Foundation
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
