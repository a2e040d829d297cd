import DocSyncCore
@testable import DocSyncEngine
import DocSyncPlatform
import DocSyncTestSupport
import Foundation
import GRDB
import Testing

/// Migration v15 of the index rewrites acknowledged records and asset references kept as wire
/// JSON (the form of the releases before the compact one) into the compact form, which is all
/// the readers read now.
@Suite struct IndexLegacyJSONMigrationTests {
    static let zone = ZoneID("Documents")

    static func document(_ name: String, tag: String?) -> DocSyncCore.Record {
        let digest = SHA256Digest(hashing: Data(name.utf8))
        return DocSyncCore.Record(
            id: RecordID(zone: zone, recordName: name), type: .document, changeTag: tag.map(ChangeTag.init), path: RelativePath("\(name).txt"),
            size: 5, modified: Timestamp(nanosecondsSince1970: 1_700_000_000_000_000_000), mode: 0o644, contentDigest: digest,
            asset: AssetReference(depth: 0, entries: [ChunkRef(digest: digest, length: 5)], chunkCount: 1, size: 5, contentDigest: digest),
            lastModifiedBy: "old laptop")
    }

    @Test func acknowledgedRecordsAndAssetsKeptAsJSONAreRewrittenAndRead() throws {
        let base = try TemporaryDirectory("docsync-index-json")
        let url = base.url.appendingPathComponent("index.sqlite")
        let acked = Self.document("r1", tag: "7")
        let asset = try #require(acked.asset)
        let uncertain = Self.document("r2", tag: nil), shadowed = Self.document("r3", tag: "2")
        // An index of the release before, whose rows held records and assets as their wire JSON.
        let old = try DatabaseQueue(path: url.path)
        try IndexSchema.migrator.migrate(old, upTo: "v14: the conflict log")
        try old.write { db in
            var item = IndexItem(recordName: "r1", path: acked.path, kind: .document,
                                 stat: FileStat(kind: .file, size: 5, modified: acked.modified, inode: 1, device: 0, mode: 0o644))
            item.pending = .none
            try item.insertBeforeV16(db)
            try db.execute(sql: "UPDATE item SET acked = ?, asset = ? WHERE recordName = 'r1'",
                           arguments: [try WireCoding.encoder.encode(acked), try WireCoding.encoder.encode(asset)])
            try db.execute(sql: "INSERT INTO shadowedFolder (recordName, path, record) VALUES ('r3', 'r3.txt', ?)",
                           arguments: [try WireCoding.encoder.encode(shadowed)])
            // The same unanswered version twice, as JSON and compact: one is kept.
            try db.execute(sql: "INSERT INTO uncertainSave (recordName, record) VALUES ('r2', ?), ('r2', ?)",
                           arguments: [try WireCoding.encoder.encode(uncertain), CompactCoding.encode(uncertain)])
        }
        try old.close()

        let index = try LocalIndex(url: url)
        let row = try #require(try index.read { db in try db.item(named: "r1") })
        #expect(row.acked == acked)
        #expect(row.asset == asset)
        let stored = try index.read { db in
            (shadowed: try Data.fetchAll(db, sql: "SELECT record FROM shadowedFolder"),
             uncertain: try Data.fetchAll(db, sql: "SELECT record FROM uncertainSave WHERE recordName = 'r2'"),
             first: try Data.fetchAll(db, sql: "SELECT acked FROM item UNION ALL SELECT asset FROM item").map(\.first))
        }
        #expect(try stored.shadowed.map { try CompactCoding.decodeRecord($0) } == [shadowed])
        #expect(try stored.uncertain.map { try CompactCoding.decodeRecord($0) } == [uncertain])
        #expect(stored.first == [1, 1], "both columns hold the compact form")
    }
}
