import DocSyncCore
import DocSyncEngine
import DocSyncPlatform
import DocSyncTestSupport
import Foundation
import GRDB
import Testing

/// The version store's catalogue and its retention (`keep_versions_days`).
@Suite struct VersionStoreTests {
    @Test func pruningRemovesExactlyTheVersionsOlderThanTheCutoffWithTheirFiles() throws {
        let base = try TemporaryDirectory("docsync-versions")
        let index = try LocalIndex(url: base.url.appendingPathComponent("index.sqlite"))
        let store = VersionStore(directory: base.url.appendingPathComponent("versions"))
        let folder = base.url.appendingPathComponent("folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var kept: [String: String] = [:]  // text → stored file
        for (day, text) in [(40, "forty days old\n"), (31, "thirty-one days old\n"), (29, "twenty-nine days old\n"), (0, "new\n")] {
            let file = folder.appendingPathComponent("notes.txt")
            try text.write(to: file, atomically: false, encoding: .utf8)
            let stat = try #require(try PosixFileSystem().status(file.path))
            let item = IndexItem(recordName: "notes", path: RelativePath("notes.txt"), kind: .document, stat: stat)
            try index.write { db in
                try store.keep(file.path, item: item, reason: .overwritten, device: "laptop", move: false, in: db)
                // Age the entry as if it had been kept `day` days ago.
                let savedAt = Timestamp.now.nanosecondsSince1970 - Int64(day) * 86_400 * 1_000_000_000
                try db.execute(sql: "UPDATE version SET savedAt = ? WHERE id = (SELECT MAX(id) FROM version)", arguments: [savedAt])
                kept[text] = try String.fetchOne(db, sql: "SELECT file FROM version WHERE id = (SELECT MAX(id) FROM version)")
            }
        }
        let cutoff = Timestamp(nanosecondsSince1970: Timestamp.now.nanosecondsSince1970 - 30 * 86_400 * 1_000_000_000)
        let removed = try index.write { db in try store.prune(olderThan: cutoff, in: db) }
        #expect(removed == 2)
        for (text, file) in kept {
            let exists = FileManager.default.fileExists(atPath: store.directory.appendingPathComponent(file).path)
            let old = text.hasPrefix("forty") || text.hasPrefix("thirty-one")
            #expect(exists == !old, "\(text)")
        }
        #expect(try index.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM version") } == 2)
    }

    /// Content a remote deletion moved into the version store survives a power cut right
    /// after, and is gone from the folder: its new name and its absence were made durable
    /// (found by the simulation, seed 31: nothing had flushed the version store's directories).
    @Test func contentMovedIntoTheStoreSurvivesAPowerCut() throws {
        let base = try TemporaryDirectory("docsync-versions")
        let index = try LocalIndex(url: base.url.appendingPathComponent("index.sqlite"))
        let fs = MemoryFileSystem(clock: { Timestamp(nanosecondsSince1970: 1_700_000_000_000_000_000) })
        try fs.makeDirectories("/home/Docs/notes")
        _ = fs.flushFileSystem(containing: "/")
        try fs.write(Data("kept through the power cut\n".utf8), to: "/home/Docs/notes/a.txt")
        _ = fs.flushFileSystem(containing: "/")
        let store = VersionStore(directory: URL(fileURLWithPath: "/home/.state/versions"), fileSystem: fs)
        let stat = try #require(try fs.status("/home/Docs/notes/a.txt"))
        let item = IndexItem(recordName: "a", path: RelativePath("notes/a.txt"), kind: .document, stat: stat)
        try index.write { db in try store.keep("/home/Docs/notes/a.txt", item: item, reason: .deleted, device: "laptop", move: true, in: db) }
        fs.crash()
        let file = try #require(try index.read { db in try String.fetchOne(db, sql: "SELECT file FROM version") })
        #expect(fs.contents("/home/.state/versions/" + file) == Data("kept through the power cut\n".utf8))
        #expect(try fs.status("/home/Docs/notes/a.txt") == nil)
    }
}
