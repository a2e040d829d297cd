import DocSyncCore
@testable import DocSyncEngine
import DocSyncPlatform
import DocSyncTestSupport
import Foundation
import GRDB
import Testing

/// The conflict log (`conflictLog`, migration v14): rows written inside the caller's
/// transaction, read newest first from a time on, pruned with the version store.
@Suite struct ConflictLogTests {
    static let day: Int64 = 86_400 * 1_000_000_000

    func entry(_ engine: FolderEngine, _ path: String, daysAgo: Int64, _ outcome: ConflictOutcome) -> ConflictLogEntry {
        var entry = engine.conflictLogEntry(path: RelativePath(path), copyPath: RelativePath("copy of \(path)"), remoteDevice: "beta",
                                            outcome: outcome, detail: "\(daysAgo) days ago")
        entry.time = Timestamp(nanosecondsSince1970: Timestamp.now.nanosecondsSince1970 - daysAgo * Self.day)
        return entry
    }

    @Test func entriesAreReadBackNewestFirstFromATimeOn() throws {
        let unstarted = try UnstartedEngine("conflict-log")
        let engine = unstarted.engine
        let written = [entry(engine, "a.txt", daysAgo: 3, .merged), entry(engine, "b.txt", daysAgo: 1, .keptBoth),
                       entry(engine, "c.txt", daysAgo: 2, .resolvedRemote)]
        try engine.index.write { db in for entry in written { try engine.logConflict(entry, in: db) } }
        #expect(try engine.conflictLog() == [written[1], written[2], written[0]])
        let since = Timestamp(nanosecondsSince1970: Timestamp.now.nanosecondsSince1970 - 2 * Self.day - Self.day / 2)
        #expect(try engine.conflictLog(since: since).map(\.path) == ["b.txt", "c.txt"])
        let first = try #require(try engine.conflictLog().first)
        #expect(first.folder == "Docs" && first.localDevice == "alpha" && first.remoteDevice == "beta" && first.copyPath == "copy of b.txt")
    }

    @Test func anEntryIsWrittenOnlyWithItsTransaction() throws {
        let unstarted = try UnstartedEngine("conflict-log-rollback")
        let engine = unstarted.engine
        struct Abandoned: Error {}
        #expect(throws: Abandoned.self) {
            try engine.index.write { db in
                try engine.logConflict(entry(engine, "a.txt", daysAgo: 0, .localWon), in: db)
                throw Abandoned()
            }
        }
        #expect(try engine.conflictLog().isEmpty)
    }

    /// The engine prunes the log where it prunes versions (its first turn): entries older than
    /// `keep_versions_days` (30) go, the rest stay.
    @Test func theEnginePrunesTheLogWithTheVersionStore() async throws {
        let unstarted = try UnstartedEngine("conflict-log-prune")
        let engine = unstarted.engine
        try engine.index.write { db in
            for (path, days) in [("old.txt", Int64(40)), ("older.txt", 31), ("recent.txt", 29), ("new.txt", 0)] {
                try engine.logConflict(entry(engine, path, daysAgo: days, .remoteWon), in: db)
            }
        }
        var loop = engine.makeLoop()
        _ = await engine.turn(&loop)
        #expect(try engine.conflictLog().map(\.path) == ["new.txt", "recent.txt"])
    }

    @Test func anIndexFromBeforeTheLogGainsIt() throws {
        let base = try TemporaryDirectory("docsync-conflict-log-migration")
        let url = base.url.appendingPathComponent("index.sqlite")
        let old = try DatabaseQueue(path: url.path)
        try IndexSchema.migrator.migrate(old, upTo: "v13: names by their extension")
        #expect(try old.read { db in try db.tableExists("conflictLog") } == false)
        try old.close()
        let index = try LocalIndex(url: url)
        #expect(try index.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM conflictLog") } == 0)
    }
}
