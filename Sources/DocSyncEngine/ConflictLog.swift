import DocSyncCore
import Foundation
import GRDB
import Logging

/// The folder's conflict log (SPEC §4): every conflict this device's engine met — merged,
/// kept both, settled by a policy, resolved by a person — in the index's `conflictLog`
/// table (migration v14). Rows are only appended; they are pruned with the version store
/// (`keep_versions_days`), where `pruneVersions` runs.
extension FolderEngine {
    /// Appends `entry` to the log inside the caller's index transaction (`db`), so the entry
    /// exists exactly when the change it describes was recorded. Also logs it (notice level,
    /// with the item's path).
    func logConflict(_ entry: ConflictLogEntry, in db: Database) throws {
        try db.execute(sql: """
            INSERT INTO conflictLog (time, folder, path, copyPath, localDevice, remoteDevice, outcome, detail)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [entry.time.nanosecondsSince1970, entry.folder, entry.path, entry.copyPath, entry.localDevice,
                             entry.remoteDevice, entry.outcome.rawValue, entry.detail])
        var metadata: Logger.Metadata = ["path": "\(entry.path)", "outcome": "\(entry.outcome.rawValue)"]
        if let copy = entry.copyPath { metadata["copy"] = "\(copy)" }
        if let remote = entry.remoteDevice { metadata["otherDevice"] = "\(remote)" }
        if let detail = entry.detail { metadata["detail"] = "\(detail)" }
        logger.notice("conflict", metadata: metadata)
    }

    /// An entry for this folder and device, timed now: what callers of `logConflict` fill in
    /// least often left to them.
    func conflictLogEntry(
        path: RelativePath, copyPath: RelativePath? = nil, remoteDevice: String?, outcome: ConflictOutcome, detail: String? = nil
    ) -> ConflictLogEntry {
        ConflictLogEntry(time: environment.wallNow(), folder: configuration.zone.name, path: path.string, copyPath: copyPath?.string,
                         localDevice: configuration.device, remoteDevice: remoteDevice, outcome: outcome, detail: detail)
    }

    /// The logged conflicts at or after `since` (every one kept when `nil`), newest first.
    /// Reads the index from any task.
    public func conflictLog(since: Timestamp? = nil) throws -> [ConflictLogEntry] {
        try index.read { db in
            try Row.fetchAll(db, sql: """
                SELECT time, folder, path, copyPath, localDevice, remoteDevice, outcome, detail FROM conflictLog
                WHERE time >= ? ORDER BY time DESC, id DESC
                """, arguments: [since?.nanosecondsSince1970 ?? Int64.min]).map { row in
                ConflictLogEntry(time: Timestamp(nanosecondsSince1970: row[0]), folder: row[1], path: row[2], copyPath: row[3],
                                 localDevice: row[4], remoteDevice: row[5],
                                 // An outcome this version does not know (written by a newer one) reads as kept-both: nothing was lost.
                                 outcome: ConflictOutcome(rawValue: row[6]) ?? .keptBoth, detail: row[7])
            }
        }
    }

    /// Removes the entries logged before `cutoff` (the version store's retention).
    static func pruneConflictLog(olderThan cutoff: Timestamp, in db: Database) throws {
        try db.execute(sql: "DELETE FROM conflictLog WHERE time < ?", arguments: [cutoff.nanosecondsSince1970])
    }
}
