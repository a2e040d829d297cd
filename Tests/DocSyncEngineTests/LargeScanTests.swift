import DocSyncCore
@testable import DocSyncEngine
import Foundation
import GRDB
import Testing

/// A scan of more items than one transaction records (`Reconciler.newItemsPerTransaction`):
/// the first scan records them a batch at a time as it walks, later scans compare the walk
/// with the index as they go, keeping only what differs, and a large new part of the folder
/// is recorded a batch at a time too.
@Suite struct LargeScanTests {
    static let directories = 60, filesPerDirectory = 200

    @Test func aLargeFirstScanRecordsEveryItemAndALaterScanOnlyTheChanges() throws {
        let setup = try UnstartedEngine("large-scan")
        let folder = setup.folder, engine = setup.engine
        for d in 0..<Self.directories {
            let directory = folder.appendingPathComponent(String(format: "d%03d", d))
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for f in 0..<Self.filesPerDirectory {
                try Data("\(d)/\(f)".utf8).write(to: directory.appendingPathComponent("f\(f).txt"))
            }
        }
        let total = Self.directories * (Self.filesPerDirectory + 1)
        #expect(total > Reconciler.newItemsPerTransaction)
        var loop = engine.makeLoop()
        try engine.reconciler.reconcile([EngineInbox.Scope(path: nil, subtree: true)], loop: &loop)
        let rows = try engine.index.read { db in try Row.fetchAll(db, sql: "SELECT path, kind, pending FROM item") }
        #expect(rows.count == total)
        #expect(Set(rows.map { $0["path"] as String }).count == rows.count)
        #expect(rows.allSatisfy { ($0["pending"] as Int) == IndexItem.Pending.save.rawValue })
        #expect(rows.filter { ($0["kind"] as String) == RecordType.folder.rawValue }.count == Self.directories)

        // Settled as if sent; then a few changes among the many unchanged items.
        try engine.index.write { db in try db.execute(sql: "UPDATE item SET pending = 0") }
        let renamedName = try engine.index.read { db in try db.item(at: RelativePath("d010/f5.txt"))?.recordName }
        try Data("edited, longer than before".utf8).write(to: folder.appendingPathComponent("d000/f0.txt"))
        try FileManager.default.moveItem(at: folder.appendingPathComponent("d010/f5.txt"), to: folder.appendingPathComponent("d059/moved.txt"))
        try FileManager.default.removeItem(at: folder.appendingPathComponent("d030/f7.txt"))
        try Data("new".utf8).write(to: folder.appendingPathComponent("d020/new.txt"))
        try engine.reconciler.reconcile([EngineInbox.Scope(path: nil, subtree: true)], loop: &loop)
        let changed = try engine.index.read { db in
            try Row.fetchAll(db, sql: "SELECT recordName, path, pending FROM item WHERE pending != 0 ORDER BY path")
        }.map { ($0["path"] as String, $0["pending"] as Int) }
        #expect(changed.map(\.0) == ["d000/f0.txt", "d020/new.txt", "d059/moved.txt"], "\(changed)")
        #expect(changed.allSatisfy { $0.1 == IndexItem.Pending.save.rawValue })
        // The move kept its record; the deleted file's row went (it was never acknowledged).
        #expect(try engine.index.read { db in try db.item(at: RelativePath("d059/moved.txt"))?.recordName } == renamedName)
        #expect(try engine.index.read { db in try db.item(at: RelativePath("d030/f7.txt")) } == nil)

        // A large new directory and nothing else: recorded a batch at a time, as new items.
        try engine.index.write { db in try db.execute(sql: "UPDATE item SET pending = 0") }
        let copied = folder.appendingPathComponent("copied")
        try FileManager.default.createDirectory(at: copied, withIntermediateDirectories: true)
        for f in 0..<(Reconciler.newItemsPerTransaction + 50) { try Data("\(f)".utf8).write(to: copied.appendingPathComponent("c\(f)")) }
        try engine.reconciler.reconcile([EngineInbox.Scope(path: nil, subtree: true)], loop: &loop)
        let added = try engine.index.read { db in try String.fetchAll(db, sql: "SELECT path FROM item WHERE pending != 0") }
        #expect(added.count == Reconciler.newItemsPerTransaction + 51)
        #expect(added.allSatisfy { $0.hasPrefix("copied") })
    }
}
