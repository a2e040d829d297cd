import DocSyncCore
@testable import DocSyncEngine
import Foundation
import Testing

/// Temporary files of downloads a crash interrupted go with the engine's first full scan;
/// this process's own temporary files, and anything after that scan, are left alone.
@Suite struct LeftoverTemporaryFileTests {
    @Test func theFirstFullScanRemovesAnEarlierProcesssTemporaryFilesOnly() async throws {
        let setup = try UnstartedEngine("leftovers")
        let folder = setup.folder, engine = setup.engine
        let sub = folder.appendingPathComponent("a/b")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        let leftover = sub.appendingPathComponent(IgnoreRules.temporaryFilePrefix + "0123abcd-report.pdf")
        let own = sub.appendingPathComponent(Materializer.ownTemporaryPrefix + "-in-flight")
        let kept = folder.appendingPathComponent("kept.txt")
        for file in [leftover, own, kept] { try Data("x".utf8).write(to: file) }
        var loop = engine.makeLoop()
        try engine.reconciler.reconcile([EngineInbox.Scope(path: nil, subtree: true)], loop: &loop)
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
        #expect(FileManager.default.fileExists(atPath: own.path))
        #expect(FileManager.default.fileExists(atPath: kept.path))
        // Neither temporary file is an item.
        #expect(try engine.index.read { db in try db.item(at: RelativePath("a/b/" + leftover.lastPathComponent)) } == nil)
        #expect(try engine.index.read { db in try db.item(at: RelativePath("a/b/" + own.lastPathComponent)) } == nil)

        // Only the first full scan removes them.
        try Data("y".utf8).write(to: leftover)
        try engine.reconciler.reconcile([EngineInbox.Scope(path: nil, subtree: true)], loop: &loop)
        #expect(FileManager.default.fileExists(atPath: leftover.path))
    }
}
