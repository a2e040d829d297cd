import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import GRDB
import Testing

/// A sent item's index row is written once per send: the scan records the change (an
/// insert, or an update for an edit), and the server's answer writes what was read with
/// the acknowledged record, in one update. Counted by triggers the test adds to the
/// device's index file, which see every connection's writes.
@Suite struct SentRowWritesTests {
    /// Writes of `item` rows since `install`, by record name and kind of write.
    struct RowWrites {
        let queue: DatabaseQueue

        init(index: URL) throws {
            queue = try DatabaseQueue(path: index.path)
            try queue.write { db in
                try db.execute(sql: """
                    CREATE TABLE testRowWrite (recordName TEXT NOT NULL, kind TEXT NOT NULL, uploading INTEGER NOT NULL);
                    CREATE TRIGGER testRowInserted AFTER INSERT ON item BEGIN INSERT INTO testRowWrite VALUES (NEW.recordName, 'insert', NEW.isUploading); END;
                    CREATE TRIGGER testRowUpdated AFTER UPDATE ON item BEGIN INSERT INTO testRowWrite VALUES (NEW.recordName, 'update', NEW.isUploading); END;
                    """)
            }
        }

        /// The number of writes of `kind` to each row at `paths`, by path; `uploading` counts
        /// only the writes that left the row showing its upload under way.
        func count(_ kind: String, at paths: [String], uploading: Bool? = nil) throws -> [String: Int] {
            try queue.read { db in
                var counts: [String: Int] = [:]
                for path in paths {
                    counts[path] = try Int.fetchOne(db, sql: """
                        SELECT COUNT(*) FROM testRowWrite w JOIN item i ON i.recordName = w.recordName
                        WHERE i.path = ? AND w.kind = ? AND (? IS NULL OR w.uploading = ?)
                        """, arguments: [path, kind, uploading, uploading]) ?? 0
                }
                return counts
            }
        }

        func reset() throws { try queue.write { db in try db.execute(sql: "DELETE FROM testRowWrite") } }
    }

    @Test func newAndEditedSmallItemsAreWrittenOncePerSend() async throws {
        let base = try TemporaryDirectory()
        let device = try EngineDevice(name: "alpha", base: base.url, backend: try LocalBackend(directory: base.url.appendingPathComponent("backend")))
        #expect(await eventually(timeout: .seconds(30)) { device.engine.isSettled })
        let writes = try RowWrites(index: base.url.appendingPathComponent("alpha-state/index.sqlite"))

        try FileManager.default.createDirectory(at: device.file("notes"), withIntermediateDirectories: true)
        let files = (0..<20).map { "notes/note\($0).txt" }
        for (number, path) in files.enumerated() { try Data("note \(number)\n".utf8).write(to: device.file(path)) }
        try FileManager.default.createSymbolicLink(atPath: device.file("latest").path, withDestinationPath: "notes/note0.txt")
        device.rescan()
        #expect(await eventually(timeout: .seconds(60)) { device.engine.isSettled && device.status.items == 22 })
        let created = ["notes", "latest"] + files
        let once: [String: Int] = Dictionary(uniqueKeysWithValues: created.map { ($0, 1) })
        // Recorded once (the scan's insert), and written once more: settled with its answer.
        #expect(try writes.count("insert", at: created) == once)
        #expect(try writes.count("update", at: created) == once)
        #expect(try writes.count("update", at: created, uploading: true).values.allSatisfy { $0 == 0 })

        try writes.reset()
        let edited = Array(files.prefix(5))
        for path in edited { try Data("edited \(path)\n".utf8).write(to: device.file(path)) }
        device.rescan()
        #expect(await eventually(timeout: .seconds(60)) {
            let counts = (try? writes.count("update", at: edited)) ?? [:]
            return device.engine.isSettled && edited.allSatisfy { counts[$0, default: 0] >= 2 }
        })
        // Recorded as changed (one update), then settled with what was read (one update).
        let twice: [String: Int] = Dictionary(uniqueKeysWithValues: edited.map { ($0, 2) })
        #expect(try writes.count("update", at: edited) == twice)
        #expect(try writes.count("update", at: Array(files.dropFirst(5))).values.allSatisfy { $0 == 0 })
    }

    @Test func aLargeFileAlsoShowsItsUploadAsItGoes() async throws {
        let base = try TemporaryDirectory()
        let device = try EngineDevice(name: "alpha", base: base.url, backend: try LocalBackend(directory: base.url.appendingPathComponent("backend")))
        #expect(await eventually(timeout: .seconds(30)) { device.engine.isSettled })
        let writes = try RowWrites(index: base.url.appendingPathComponent("alpha-state/index.sqlite"))
        var generator = SplitMix64(seed: 36)
        try Data((0..<(3 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: device.file("large.bin"))
        device.rescan()
        #expect(await eventually(timeout: .seconds(60)) { device.engine.isSettled && device.status.items == 1 })
        // Marked uploading with what was read (and its progress as chunks travel), then
        // settled with its answer.
        let uploadingWrites = try writes.count("update", at: ["large.bin"], uploading: true)["large.bin", default: 0]
        let settledWrites = try writes.count("update", at: ["large.bin"], uploading: false)["large.bin", default: 0]
        #expect(uploadingWrites >= 1)
        #expect(settledWrites == 1)
        let uploaded: Bool? = try await writes.queue.read { db in try Bool.fetchOne(db, sql: "SELECT isUploaded AND NOT isUploading AND NOT needsRead FROM item WHERE path = 'large.bin'") }
        #expect(uploaded == true)
    }
}
