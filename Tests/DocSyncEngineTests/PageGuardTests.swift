import DocSyncCore
@testable import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Logging
import Testing

/// The sender prepares page N+1 while page N is being sent. Sending page N may change rows
/// of page N+1 (a merge moving a folder's children, a local edit recorded meanwhile):
/// `changedSincePrepared` must name exactly those rows, so they are left for the next pass
/// instead of being sent as they stood when read.
@Suite struct PageGuardTests {
    let setup: UnstartedEngine
    var engine: FolderEngine { setup.engine }
    var folder: URL { setup.folder }

    /// The engine is never run: the test drives the page steps itself.
    init() throws { setup = try UnstartedEngine("page-guard") }

    /// Writes `names` into the folder and records them as the scan would: new, pending, unread.
    private func recordNewFiles(_ names: [String]) throws {
        for name in names {
            let path = folder.appendingPathComponent(name).path
            try Data("content of \(name)".utf8).write(to: URL(fileURLWithPath: path))
            let stat = try #require(try PosixFileSystem().status(path))
            try engine.writeIndex { db in try IndexItem(recordName: "r-\(name)", path: RelativePath(name), kind: .document, stat: stat).insert(db) }
        }
    }

    @Test func onlyRowsChangedAfterThePageWasPreparedAreLeftOut() throws {
        try recordNewFiles(["a.txt", "b.txt", "c.txt", "d.txt"])
        let page = try #require(try engine.sender.preparePage(after: Sender.PageCursor()))
        #expect(page.saves.map(\.recordName).sorted() == ["r-a.txt", "r-b.txt", "r-c.txt", "r-d.txt"])
        #expect(page.saves.allSatisfy { !$0.needsRead && $0.digest != nil })
        #expect(try engine.sender.changedSincePrepared(page).isEmpty)

        try engine.writeIndex { db in
            // A local edit recorded while the page waited.
            var edited = try #require(try db.item(named: "r-a.txt"))
            edited.markChanged()
            edited.needsRead = true
            try edited.update(db)
            // A merge moving the item elsewhere.
            var moved = try #require(try db.item(named: "r-b.txt"))
            moved.path = RelativePath("moved/b.txt")
            try moved.update(db)
            // A status-only change (what a transfer report writes) is not a change of the item.
            var reported = try #require(try db.item(named: "r-c.txt"))
            reported.status.percentUploaded = 50
            reported.status.isUploading = true
            try reported.update(db)
            // An item deleted meanwhile.
            try db.deleteItem(named: "r-d.txt")
        }
        #expect(try engine.sender.changedSincePrepared(page) == ["r-a.txt", "r-b.txt", "r-d.txt"])
    }

    @Test func aPageOfDeletionsIsGuardedToo() throws {
        try recordNewFiles(["gone.txt"])
        try engine.writeIndex { db in
            var row = try #require(try db.item(named: "r-gone.txt"))
            row.acked = row.record(zone: ZoneID("Docs"), device: "alpha")
            row.pending = .delete
            try row.update(db)
        }
        let page = try #require(try engine.sender.preparePage(after: Sender.PageCursor()))
        #expect(page.deletions.map(\.recordName) == ["r-gone.txt"])
        #expect(try engine.sender.changedSincePrepared(page).isEmpty)
        try engine.writeIndex { db in
            // The file came back before the deletion was sent.
            var row = try #require(try db.item(named: "r-gone.txt"))
            row.markChanged()
            try row.update(db)
        }
        #expect(try engine.sender.changedSincePrepared(page) == ["r-gone.txt"])
    }
}
