import DocSyncCore
import DocSyncStorage
import Foundation
import Logging
import PostgresNIO

/// The shares of the scale-out store: one row per participant of each shared zone in the
/// `share_entry` table every instance shares, never deleted (an ended entry says how it
/// ended). A change is one conditional statement, so two instances changing one entry at
/// once cannot both succeed.
extension ScaleOutStore {
    public func shareEntries(of share: ShareName) async throws(SyncError) -> [ShareEntry] {
        let logger = self.logger
        return try await withConnection("read the share \(share)") { connection in
            try await Self.entries(connection.statement("""
                SELECT owner, zone, participant, permission, status, changed FROM share_entry WHERE owner = \(share.owner) AND zone = \(share.zone.name)
                """, logger: logger))
        }
    }

    public func shareEntries(participant: String) async throws(SyncError) -> [ShareEntry] {
        let logger = self.logger
        return try await withConnection("read the shares of \(participant)") { connection in
            try await Self.entries(connection.statement("""
                SELECT owner, zone, participant, permission, status, changed FROM share_entry WHERE participant = \(participant)
                """, logger: logger))
        }
    }

    public func shareEntry(_ share: ShareName, participant: String) async throws(SyncError) -> ShareEntry? {
        let logger = self.logger
        return try await withConnection("read the share \(share)") { connection in
            try await Self.entries(connection.statement("""
                SELECT owner, zone, participant, permission, status, changed FROM share_entry
                WHERE owner = \(share.owner) AND zone = \(share.zone.name) AND participant = \(participant)
                """, logger: logger)).first
        }
    }

    public func replaceShareEntry(_ expected: ShareEntry?, with entry: ShareEntry) async throws(SyncError) -> Bool {
        let logger = self.logger
        let owner = entry.share.owner, zone = entry.share.zone.name, participant = entry.participant
        let permission = entry.permission.rawValue, status = entry.status.rawValue, changed = entry.changed.nanosecondsSince1970
        return try await withConnection("change the share \(entry.share)") { connection in
            let rows: PostgresRowSequence
            if let expected {
                let oldPermission = expected.permission.rawValue, oldStatus = expected.status.rawValue
                let oldChanged = expected.changed.nanosecondsSince1970
                rows = try await connection.statement("""
                    UPDATE share_entry SET permission = \(permission), status = \(status), changed = \(changed)
                    WHERE owner = \(owner) AND zone = \(zone) AND participant = \(participant)
                      AND permission = \(oldPermission) AND status = \(oldStatus) AND changed = \(oldChanged)
                    RETURNING 1
                    """, logger: logger)
            } else {
                rows = try await connection.statement("""
                    INSERT INTO share_entry (owner, zone, participant, permission, status, changed)
                    VALUES (\(owner), \(zone), \(participant), \(permission), \(status), \(changed))
                    ON CONFLICT (owner, zone, participant) DO NOTHING RETURNING 1
                    """, logger: logger)
            }
            var replaced = false
            for try await _ in rows { replaced = true }
            return replaced
        }
    }

    /// The entries of `rows`; a row this release cannot read (a status a newer one wrote) is left out.
    private static func entries(_ rows: PostgresRowSequence) async throws -> [ShareEntry] {
        var found: [ShareEntry] = []
        for try await (owner, zone, participant, permission, status, changed) in rows.decode((String, String, String, String, String, Int64).self) {
            guard let zone = try? ZoneID(validating: zone), let permission = SharePermission(rawValue: permission),
                  let status = ShareStatus(rawValue: status) else { continue }
            found.append(ShareEntry(share: ShareName(owner: owner, zone: zone), participant: participant, permission: permission,
                                    status: status, changed: Timestamp(nanosecondsSince1970: changed)))
        }
        return found
    }
}
