import DocSyncCore
@testable import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Logging
import Testing

/// A conflict copy is named so as to take no path that is in use: on disk, whatever is
/// there (the move that follows refuses to replace anything), or by an item of the index.
@Suite struct ConflictCopyNameTests {
    let base: TemporaryDirectory
    let engine: FolderEngine
    let folder: URL

    init() throws {
        base = try TemporaryDirectory("docsync-copy-name")
        folder = base.url.appendingPathComponent("folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var logger = Logger(label: "test.copy-name")
        logger.logLevel = .warning
        let configuration = EngineConfiguration(
            zone: ZoneID("Docs"), root: folder, stateDirectory: base.url.appendingPathComponent("state"), device: "alpha",
            conflictPolicy: .keepBoth, onDemand: false, maxFileSize: 50_000_000)
        // Never run: only its view of the folder and the index is asked.
        engine = try FolderEngine(configuration: configuration, backend: try LocalBackend(directory: base.url.appendingPathComponent("backend")),
                                  logger: logger)
    }

    @Test func aDanglingSymlinkTakesItsName() throws {
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("gone.txt").path, withDestinationPath: "nowhere")
        #expect(engine.isTaken(RelativePath("gone.txt")))
    }

    @Test func filesFoldersAndIndexedItemsTakeTheirNames() throws {
        try Data("x".utf8).write(to: folder.appendingPathComponent("file.txt"))
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("dir"), withIntermediateDirectories: true)
        let stat = FileStat(kind: .file, size: 1, modified: Timestamp(nanosecondsSince1970: 0), inode: 1, device: 0, mode: 0o644)
        try engine.writeIndex { db in try IndexItem(recordName: "r-indexed", path: RelativePath("indexed.txt"), kind: .document, stat: stat).insert(db) }
        #expect(engine.isTaken(RelativePath("file.txt")))
        #expect(engine.isTaken(RelativePath("dir")))
        #expect(engine.isTaken(RelativePath("indexed.txt")))
        #expect(!engine.isTaken(RelativePath("free.txt")))
    }
}
