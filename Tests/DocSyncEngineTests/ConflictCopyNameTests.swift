import DocSyncCore
@testable import DocSyncEngine
import DocSyncTestSupport
import Foundation
import Testing

/// A conflict copy is named so as to take no path that is in use: on disk, whatever is
/// there (the move that follows refuses to replace anything), or by an item of the index.
@Suite struct ConflictCopyNameTests {
    /// Never run: only its view of the folder and the index is asked.
    let idle: UnstartedEngine
    init() throws { idle = try UnstartedEngine("copy-name") }

    @Test func aDanglingSymlinkTakesItsName() throws {
        try FileManager.default.createSymbolicLink(atPath: idle.folder.appendingPathComponent("gone.txt").path, withDestinationPath: "nowhere")
        #expect(idle.engine.observer.isTaken(RelativePath("gone.txt")))
    }

    @Test func filesFoldersAndIndexedItemsTakeTheirNames() throws {
        try Data("x".utf8).write(to: idle.folder.appendingPathComponent("file.txt"))
        try FileManager.default.createDirectory(at: idle.folder.appendingPathComponent("dir"), withIntermediateDirectories: true)
        let stat = FileStat(kind: .file, size: 1, modified: Timestamp(nanosecondsSince1970: 0), inode: 1, device: 0, mode: 0o644)
        try idle.engine.writeIndex { db in try IndexItem(recordName: "r-indexed", path: RelativePath("indexed.txt"), kind: .document, stat: stat).insert(db) }
        #expect(idle.engine.observer.isTaken(RelativePath("file.txt")))
        #expect(idle.engine.observer.isTaken(RelativePath("dir")))
        #expect(idle.engine.observer.isTaken(RelativePath("indexed.txt")))
        #expect(!idle.engine.observer.isTaken(RelativePath("free.txt")))
    }
}
