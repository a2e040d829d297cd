import DocSyncCore
import DocSyncStorage
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import PostgresNIO

/// Writing a migrated store's rows (`StoreExport`) into the scale-out store, unchanged:
/// sequence values, change tags, incarnations and times stay what they were, so devices go
/// on where they were. Used by `docsync-server migrate` on a store no instance serves yet.
extension ScaleOutStore {
    /// Creates the account `name` with its token hashes and quota; `invalidArguments` when
    /// an account of that name exists already (a migration goes into an empty store).
    public func importAccount(name: String, created: Double, quotaBytes: Int64?, tokens: [(hash: String, created: Double, device: String?)]) async throws(SyncError) -> Int64 {
        let logger = self.logger
        return try await withConnection("import the account \(name)") { connection in
            try await connection.transaction(logger) { connection in
                var id: Int64?
                for try await inserted in try await connection.statement("""
                    INSERT INTO account (name, created, quota_bytes) VALUES (\(name), \(created), \(quotaBytes)) ON CONFLICT (name) DO NOTHING RETURNING id
                    """, logger: logger).decode(Int64.self) {
                    id = inserted
                }
                guard let id else {
                    throw SyncError(.invalidArguments, "the destination has a user \(name) already; migrate into a store no server has used")
                }
                if !tokens.isEmpty {
                    let hashes = tokens.map(\.hash), prefixes = tokens.map { String($0.hash.prefix(8)) }, times = tokens.map(\.created)
                    let devices = tokens.map { $0.device ?? "" }
                    try await connection.statement("""
                        INSERT INTO token (hash, prefix, account, created, device)
                        SELECT hash, prefix, \(id), created, nullif(device, '') FROM unnest(\(hashes)::text[], \(prefixes)::text[], \(times)::float8[], \(devices)::text[])
                            AS t(hash, prefix, created, device)
                        """, logger: logger)
                }
                return (id, commit: true)
            }
        }
    }

    /// Sets the account's sequence to `value` unless it is past it already.
    public func importSequence(_ value: Int64, account: Int64) async throws(SyncError) {
        try await execute("import the sequence", "UPDATE account SET seq = greatest(seq, \(value)) WHERE id = \(account)")
    }

    public func importZones(_ zones: [StoreExport.Zone], account: Int64) async throws(SyncError) {
        guard !zones.isEmpty else { return }
        let names = zones.map(\.name), incarnations = zones.map(\.incarnation), last = zones.map(\.lastSeq), compacted = zones.map(\.compactedThroughSeq)
        let movedTo = zones.map { $0.movedTo ?? "" }  // "": a zone in use
        try await execute("import \(zones.count) zones", """
            INSERT INTO zone (account, name, incarnation, last_seq, compacted_through_seq, moved_to)
            SELECT \(account), name, incarnation, last_seq, compacted, nullif(moved_to, '')
            FROM unnest(\(names)::text[], \(incarnations)::text[], \(last)::bigint[], \(compacted)::bigint[], \(movedTo)::text[])
                AS t(name, incarnation, last_seq, compacted, moved_to)
            """)
    }

    public func importRecords(_ rows: [StoreExport.RecordRow], account: Int64) async throws(SyncError) {
        guard !rows.isEmpty else { return }
        let zones = rows.map(\.zone), names = rows.map(\.recordName), tags = rows.map(\.changeTag), seqs = rows.map(\.seq)
        let bodies = rows.map { ByteBuffer(data: $0.body) }
        try await execute("import \(rows.count) records", """
            INSERT INTO record (account, zone, record_name, change_tag, seq, body)
            SELECT \(account), * FROM unnest(\(zones)::text[], \(names)::text[], \(tags)::text[], \(seqs)::bigint[], \(bodies)::bytea[])
            """)
    }

    public func importTombstones(_ rows: [StoreExport.Tombstone], account: Int64) async throws(SyncError) {
        guard !rows.isEmpty else { return }
        let zones = rows.map(\.zone), names = rows.map(\.recordName), seqs = rows.map(\.seq), times = rows.map(\.deletedAt)
        try await execute("import \(rows.count) tombstones", """
            INSERT INTO tombstone (account, zone, record_name, seq, deleted_at)
            SELECT \(account), * FROM unnest(\(zones)::text[], \(names)::text[], \(seqs)::bigint[], \(times)::float8[])
            """)
    }

    public func importDeleted(_ rows: [StoreExport.DeletedRow], account: Int64) async throws(SyncError) {
        guard !rows.isEmpty else { return }
        let zones = rows.map(\.zone), names = rows.map(\.recordName), seqs = rows.map(\.seq), times = rows.map(\.deletedAt)
        let devices = rows.map(\.deletedBy), bodies = rows.map { ByteBuffer(data: $0.body) }
        try await execute("import \(rows.count) deleted records", """
            INSERT INTO deleted_record (account, zone, record_name, seq, deleted_at, deleted_by, body)
            SELECT \(account), * FROM unnest(\(zones)::text[], \(names)::text[], \(seqs)::bigint[], \(times)::bigint[], \(devices)::text[], \(bodies)::bytea[])
            """)
    }

    public func importReplaced(_ rows: [StoreExport.ReplacedRow], account: Int64) async throws(SyncError) {
        guard !rows.isEmpty else { return }
        let zones = rows.map(\.zone), names = rows.map(\.recordName), seqs = rows.map(\.seq), times = rows.map(\.replacedAt)
        let bodies = rows.map { ByteBuffer(data: $0.body) }
        try await execute("import \(rows.count) kept versions", """
            INSERT INTO replaced_version (account, zone, record_name, seq, replaced_at, body)
            SELECT \(account), * FROM unnest(\(zones)::text[], \(names)::text[], \(seqs)::bigint[], \(times)::bigint[], \(bodies)::bytea[])
            """)
    }

    private func execute(_ what: String, _ query: PostgresQuery) async throws(SyncError) {
        let logger = self.logger
        _ = try await withConnection(what) { connection in try await connection.statement(query, logger: logger) }
    }
}
