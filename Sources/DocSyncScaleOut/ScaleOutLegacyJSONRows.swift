import DocSyncCore
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import PostgresNIO

/// The rewrite of migration v3: record bodies kept as wire JSON (`CompactCoding.isLegacyJSON`:
/// the first byte is `{`, 0x7b) in `record`, `deleted_record` and `replaced_version` become
/// the compact form, a thousand rows at a time in key order, on the migrating connection
/// (inside its transaction, under the migration lock). A body too damaged to read stays as it was and is logged; reading
/// it later fails as it did before.
enum ScaleOutLegacyJSONRows {
    static func rewrite(_ connection: PostgresConnection, logger: Logger) async throws {
        var rewritten = 0, unreadable: [String] = []
        for table in ["record", "deleted_record"] {
            var after: (account: Int64, zone: String, name: String)?
            while true {
                let (lastAccount, lastZone, lastName) = after ?? (Int64.min, "", "")
                var rows: [(Int64, String, String, Data)] = []
                for try await (account, zone, name, body) in try await connection.statement("""
                    SELECT account, zone, record_name, body FROM \(unescaped: table)
                    WHERE substring(body FROM 1 FOR 1) = '\\x7b'::bytea AND (account, zone, record_name) > (\(lastAccount), \(lastZone), \(lastName))
                    ORDER BY account, zone, record_name LIMIT 1000
                    """, logger: logger).decode((Int64, String, String, ByteBuffer).self) {
                    rows.append((account, zone, name, Data(buffer: body)))
                }
                guard let last = rows.last else { break }
                for (account, zone, name, body) in rows {
                    guard let compact = try? CompactCoding.recordFromLegacyJSON(body) else {
                        unreadable.append("\(table) \(account)/\(zone)/\(name)")
                        continue
                    }
                    try await connection.statement("""
                        UPDATE \(unescaped: table) SET body = \(ByteBuffer(data: compact)) WHERE account = \(account) AND zone = \(zone) AND record_name = \(name)
                        """, logger: logger)
                    rewritten += 1
                }
                after = (last.0, last.1, last.2)
            }
        }
        var afterID = Int64.min
        while true {
            var rows: [(Int64, Data)] = []
            for try await (id, body) in try await connection.statement("""
                SELECT id, body FROM replaced_version WHERE substring(body FROM 1 FOR 1) = '\\x7b'::bytea AND id > \(afterID) ORDER BY id LIMIT 1000
                """, logger: logger).decode((Int64, ByteBuffer).self) {
                rows.append((id, Data(buffer: body)))
            }
            guard let last = rows.last else { break }
            for (id, body) in rows {
                guard let compact = try? CompactCoding.recordFromLegacyJSON(body) else {
                    unreadable.append("replaced_version \(id)")
                    continue
                }
                try await connection.statement("UPDATE replaced_version SET body = \(ByteBuffer(data: compact)) WHERE id = \(id)", logger: logger)
                rewritten += 1
            }
            afterID = last.0
        }
        if rewritten > 0 || !unreadable.isEmpty {
            logger.notice("records kept as JSON rewritten in the compact form", metadata: [
                "rewritten": "\(rewritten)", "unreadable": "\(unreadable.prefix(20))", "unreadableCount": "\(unreadable.count)"])
        }
    }
}
