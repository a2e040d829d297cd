import DocSyncCore
@testable import DocSyncStorage
import DocSyncTestSupport
import Foundation
import GRDB
import Testing

/// A backend directory written by an older version opens, migrates and serves what it held.
@Suite struct LocalBackendMigrationTests {
    /// A store as the version before numbered packs wrote it: two packs of two chunks each,
    /// indexed by pack name. Returns the chunks.
    func versionTwoStore(at directory: TemporaryDirectory) throws -> [ChunkUpload] {
        let old = try DatabaseQueue(path: directory.path + "/records.sqlite")
        try LocalBackendSchema.migrator.migrate(old, upTo: "v2: chunks in pack files, indexed")
        try FileManager.default.createDirectory(atPath: directory.path + "/packs", withIntermediateDirectories: true)
        var stored: [ChunkUpload] = []
        for pack in ["1-aaaa.pack", "2-bbbb.pack"] {
            let chunks = (0..<2).map { index in Data("\(pack) chunk \(index) ".utf8) + Data(repeating: UInt8(index), count: 100) }
            try chunks.reduce(Data(), +).write(to: URL(fileURLWithPath: directory.path + "/packs/" + pack))
            var offset = 0
            for bytes in chunks {
                let digest = SHA256Digest(hashing: bytes)
                try old.write { db in
                    try db.execute(sql: "INSERT INTO chunk (digest, pack, offset, length) VALUES (?, ?, ?, ?)",
                                   arguments: [Data(digest.bytes), pack, offset, bytes.count])
                }
                stored.append(ChunkUpload(digest: digest, bytes: bytes))
                offset += bytes.count
            }
        }
        return stored
    }

    @Test func chunksIndexedByPackNameAreServedAfterTheyAreNumbered() async throws {
        let directory = try TemporaryDirectory("docsync-backend-migration")
        let stored = try versionTwoStore(at: directory)
        let backend = try LocalBackend(directory: directory.url)
        let loaded = try await backend.downloadChunks(stored.map(\.digest))
        for chunk in stored { #expect(loaded[chunk.digest] == chunk.bytes) }
        #expect(try await backend.missingChunks(stored.map(\.digest)).isEmpty)
        // New chunks go to a pack numbered after the migrated ones.
        let new = ChunkUpload(digest: SHA256Digest(hashing: Data("new".utf8)), bytes: Data("new".utf8))
        try await backend.uploadChunks([new])
        #expect(try await backend.downloadChunks([new.digest])[new.digest] == new.bytes)
    }

    @Test func migratedChunksCarryTheKeyTheyAreFoundBy() async throws {
        let directory = try TemporaryDirectory("docsync-backend-migration")
        let stored = try versionTwoStore(at: directory)
        let backend = try LocalBackend(directory: directory.url)
        // Uploading them again adds nothing: each is found by its key.
        try await backend.uploadChunks(stored)
        #expect(try await backend.usage().chunkCount == stored.count)
        let database = try DatabaseQueue(path: directory.path + "/records.sqlite")
        let (rows, plan) = try database.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT digestKey, digest FROM chunk")
            let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + PackStore.presenceQuery, arguments: [0, Data()]).map { $0["detail"] as String }
            return (rows, plan)
        }
        #expect(rows.count == stored.count)
        for row in rows {
            let digest = try #require(SHA256Digest(bytes: row["digest"] as Data))
            #expect(row["digestKey"] as Int64 == digest.indexKey)
        }
        #expect(plan.contains { $0.contains("INDEX chunk_by_key") }, "\(plan)")
    }

    @Test func chunksFromBeforeCountersAreCountedOnceAndCountAsOld() async throws {
        let directory = try TemporaryDirectory("docsync-backend-migration")
        let stored = try versionTwoStore(at: directory)
        let backend = try LocalBackend(directory: directory.url, options: .init(collectsOnSchedule: false))
        let usage = try await backend.usage()
        #expect(usage.chunkCount == stored.count && usage.chunkBytes == Int64(stored.reduce(0) { $0 + $1.bytes.count }))
        // Nothing references them and they carry no age: older than any grace period.
        let report = try await backend.collectGarbage()
        #expect(report.chunksRemoved == stored.count && report.packsRemoved == 2)
        #expect(try await backend.usage().chunkCount == 0)
    }

    @Test func aStoreMigratedByANewerVersionIsRefused() throws {
        let directory = try TemporaryDirectory("docsync-backend-migration")
        _ = try LocalBackend(directory: directory.url)
        try DatabaseQueue(path: directory.path + "/records.sqlite").write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from a later version')")
        }
        let error = #expect(throws: SyncError.self) { try LocalBackend(directory: directory.url) }
        #expect(error?.code == .invalidArguments)
        #expect(error?.message.contains("newer version of docsync") == true, "\(String(describing: error))")
    }
}
