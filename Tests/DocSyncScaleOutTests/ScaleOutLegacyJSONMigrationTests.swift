import DocSyncCore
import DocSyncPlatform
@testable import DocSyncScaleOut
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import NIOCore
import PostgresNIO
import Testing

/// Migration v3 rewrites record bodies kept as wire JSON (copied from an embedded store of an
/// older release) into the compact form, which is all the readers read now.
@Suite struct ScaleOutLegacyJSONMigrationTests {
    static let zone = ZoneID("Documents")

    static func document(_ name: String, tag: String) -> Record {
        let digest = SHA256Digest(hashing: Data(name.utf8))
        return Record(id: RecordID(zone: zone, recordName: name), type: .document, changeTag: ChangeTag(tag), path: RelativePath("\(name) café.txt"),
                      size: 1, modified: Timestamp(nanosecondsSince1970: 1_700_000_000_000_000_000), mode: 0o644, contentDigest: digest,
                      asset: AssetReference(depth: 0, entries: [], chunkCount: 0, size: 1, contentDigest: digest), lastModifiedBy: "old")
    }

    @Test func recordsKeptAsJSONAreRewrittenAndRead() async throws {
        let storage = try await ScaleOutTestStorage.make()
        do {
            let logger = ScaleOutTestStorage.logger
            let live = Self.document("live", tag: "2"), deleted = Self.document("gone", tag: "3"), replaced = Self.document("live", tag: "1")
            let json = { (record: Record) in ByteBuffer(data: try WireCoding.encoder.encode(record)) }
            // Deleted and replaced just now: within every retention.
            let now = Timestamp.now.nanosecondsSince1970
            // A database of the release before, holding JSON bodies as `docsync-server migrate` copied them.
            let connection = try await storage.database.connect(logger: logger)
            do {
                _ = try await ScaleOutMigrator.migrate(connection, upTo: "v2: rate limits shared by the instances", logger: logger)
                var account: Int64 = 0
                for try await id in try await connection.query("INSERT INTO account (name, created, seq) VALUES ('ana', 0, 4) RETURNING id", logger: logger).decode(Int64.self) {
                    account = id
                }
                try await connection.query("INSERT INTO zone (account, name, incarnation, last_seq) VALUES (\(account), \(Self.zone.name), 'i1', 3)", logger: logger)
                try await connection.query("""
                    INSERT INTO record (account, zone, record_name, change_tag, seq, body) VALUES (\(account), \(Self.zone.name), 'live', '2', 2, \(try json(live)))
                    """, logger: logger)
                try await connection.query("""
                    INSERT INTO deleted_record (account, zone, record_name, seq, deleted_at, deleted_by, body)
                    VALUES (\(account), \(Self.zone.name), 'gone', 3, \(now), 'laptop', \(try json(deleted)))
                    """, logger: logger)
                try await connection.query("""
                    INSERT INTO replaced_version (account, zone, record_name, seq, replaced_at, body)
                    VALUES (\(account), \(Self.zone.name), 'live', 1, \(now), \(try json(replaced)))
                    """, logger: logger)
                try await connection.query("""
                    INSERT INTO replaced_version (account, zone, record_name, seq, replaced_at, body)
                    VALUES (\(account), \(Self.zone.name), 'live', 0, \(now), \(ByteBuffer(string: "{\"damaged")))
                    """, logger: logger)
                try await connection.close()
            } catch {
                try? await connection.close()
                throw error
            }

            // The next instance to start migrates (under the lock) and reads the rows.
            let store = try await storage.open()
            let backend = store.backend(account: try #require(try await store.accountID(named: "ana")))
            let changes = try await backend.fetchChanges(in: Self.zone, since: nil, limit: 100)
            #expect(changes.changed == [live])
            #expect(try await backend.listDeleted(in: Self.zone, since: nil).map(\.record) == [deleted])

            let check = try await storage.database.connect(logger: logger)
            var firstBytes: [String: [UInt8]] = [:]
            for try await (table, first) in try await check.query("""
                SELECT 'record', get_byte(body, 0) FROM record UNION ALL SELECT 'deleted', get_byte(body, 0) FROM deleted_record
                UNION ALL SELECT 'replaced', get_byte(body, 0) FROM replaced_version
                """, logger: logger).decode((String, Int32).self) {
                firstBytes[table, default: []].append(UInt8(first))
            }
            var replacedBodies: [Data] = []
            for try await body in try await check.query("SELECT body FROM replaced_version ORDER BY seq DESC", logger: logger).decode(ByteBuffer.self) {
                replacedBodies.append(Data(buffer: body))
            }
            try await check.close()
            #expect(firstBytes["record"] == [1] && firstBytes["deleted"] == [1])
            #expect(firstBytes["replaced"]?.sorted() == [1, UInt8(ascii: "{")], "the damaged row is left as it was")
            #expect(try CompactCoding.decodeRecord(replacedBodies[0]) == replaced)
        } catch {
            await storage.close()
            throw error
        }
        await storage.close()
    }
}
