import DocSyncCore
import DocSyncPlatform
@testable import DocSyncStorage
import DocSyncTestSupport
import Foundation
import GRDB
import Testing

/// Migration v6 of the embedded store rewrites records kept as wire JSON (the form of the
/// releases before the compact one) into the compact form, which is all the readers read now.
@Suite struct LocalBackendLegacyJSONMigrationTests {
    static let zone = ZoneID("Documents")

    static func record(_ name: String, tag: String, type: RecordType = .folder) -> DocSyncCore.Record {
        DocSyncCore.Record(id: RecordID(zone: zone, recordName: name), type: type, changeTag: ChangeTag(tag), path: RelativePath("\(name)/é"),
               modified: Timestamp(nanosecondsSince1970: 1_700_000_000_000_000_000), mode: 0o755, lastModifiedBy: "old laptop")
    }

    /// A store of the release before, whose records were saved as their wire JSON: `live` in
    /// `record`, `deleted` in Recently Deleted, `replaced` and a damaged row as replaced versions.
    static func storeOfTheReleaseBefore(at directory: TemporaryDirectory, live: DocSyncCore.Record, deleted: DocSyncCore.Record,
                                        replaced: DocSyncCore.Record) throws {
        let old = try DatabaseQueue(path: directory.path + "/records.sqlite")
        try LocalBackendSchema.migrator.migrate(old, upTo: "v5: Recently Deleted, replaced versions, chunk ages, usage counters")
        // Deleted and replaced just now: within every retention, so opening prunes nothing.
        let now = Timestamp.now.nanosecondsSince1970
        try old.write { db in
            let zone = Self.zone.name
            try db.execute(sql: "UPDATE sequence SET value = 3")
            try db.execute(sql: "INSERT INTO zone (name, incarnation, lastSeq) VALUES (?, 'i1', 3)", arguments: [zone])
            try db.execute(sql: "INSERT INTO record (zone, recordName, changeTag, seq, body) VALUES (?, 'live', '3', 3, ?)",
                           arguments: [zone, try WireCoding.encoder.encode(live)])
            try db.execute(sql: "INSERT INTO deletedRecord (zone, recordName, seq, deletedAt, deletedBy, body) VALUES (?, 'gone', 2, ?, 'laptop', ?)",
                           arguments: [zone, now, try WireCoding.encoder.encode(deleted)])
            try db.execute(sql: "INSERT INTO replacedVersion (zone, recordName, seq, replacedAt, body) VALUES (?, 'live', 1, ?, ?)",
                           arguments: [zone, now, try WireCoding.encoder.encode(replaced)])
            try db.execute(sql: "INSERT INTO replacedVersion (zone, recordName, seq, replacedAt, body) VALUES (?, 'live', 0, ?, ?)",
                           arguments: [zone, now, Data("{\"damaged".utf8)])
        }
        try old.close()
    }

    @Test func recordsKeptAsJSONAreRewrittenAndRead() async throws {
        let directory = try TemporaryDirectory("docsync-backend-json")
        let live = Self.record("live", tag: "3"), replaced = Self.record("live", tag: "1"), deleted = Self.record("gone", tag: "2")
        try Self.storeOfTheReleaseBefore(at: directory, live: live, deleted: deleted, replaced: replaced)

        let backend = try LocalBackend(directory: directory.url, options: .init(collectsOnSchedule: false))
        #expect(try await backend.fetchChanges(in: Self.zone, since: nil, limit: 100).changed == [live])
        #expect(try await backend.listDeleted(in: Self.zone, since: nil).map(\.record) == [deleted])

        let bodies = try await DatabaseQueue(path: directory.path + "/records.sqlite").read { db in
            try Row.fetchAll(db, sql: """
                SELECT 'record', body FROM record UNION ALL SELECT 'deleted', body FROM deletedRecord
                UNION ALL SELECT 'replaced ' || seq, body FROM replacedVersion
                """).map { ($0[0] as String, $0[1] as Data) }
        }
        let byName = Dictionary(bodies, uniquingKeysWith: { a, _ in a })
        #expect(try CompactCoding.decodeRecord(#require(byName["record"])) == live)
        #expect(try CompactCoding.decodeRecord(#require(byName["deleted"])) == deleted)
        #expect(try CompactCoding.decodeRecord(#require(byName["replaced 1"])) == replaced)
        #expect(byName["replaced 0"] == Data("{\"damaged".utf8), "a damaged row is left as it was")
    }

    /// The reader knows the compact form only: a JSON row that no migration rewrote is an
    /// error that says what it is, not a record.
    @Test func theReaderRefusesJSON() throws {
        let json = try WireCoding.encoder.encode(Self.record("r", tag: "1"))
        let error = #expect(throws: CompactCodingError.self) { try CompactCoding.decodeRecord(json) }
        #expect(error?.description.contains("kept as JSON") == true)
        let digest = SHA256Digest(hashing: Data())
        let asset = try WireCoding.encoder.encode(AssetReference(depth: 0, entries: [], chunkCount: 0, size: 0, contentDigest: digest))
        #expect(throws: CompactCodingError.self) { try CompactCoding.decodeAssetReference(asset) }
    }
}
