import DocSyncCore
import Foundation
import GRDB

/// Folder records that wait for their path: two devices made a folder at one path while
/// apart, and this device keeps its own (the smaller record name, SPEC §4's "first at the
/// path" made deterministic). The other devices drop the second record; until they have,
/// it is remembered here, so that if this device's folder moves or goes first, the second
/// one is placed at the path it still has on the server instead of being missed forever.
extension FolderEngine {
    /// Remembers `record` as waiting for its path (replacing what was remembered of it).
    func shadow(_ record: DocSyncCore.Record) throws(SyncError) {
        try writeIndex { db in
            try db.execute(sql: "INSERT OR REPLACE INTO shadowedFolder (recordName, path, record) VALUES (?, ?, ?)",
                           arguments: [record.id.recordName, record.path.string, CompactCoding.encode(record)])
        }
        logger.debug("a second folder record for a path this device's folder holds; it waits for the path",
                     metadata: ["path": "\(record.path)", "record": "\(record.id.recordName)"])
    }

    /// Forgets the waiting records among `names` (deleted on the server).
    func forgetShadowedFolders(_ names: [String]) throws(SyncError) {
        guard !names.isEmpty, try readIndex({ db in try db.hasRows("shadowedFolder") }) else { return }
        try writeIndex { db in
            let statement = try db.cachedStatement(sql: "DELETE FROM shadowedFolder WHERE recordName = ?")
            for name in names { try statement.execute(arguments: [name]) }
        }
    }

    /// Places the waiting folder records whose path no folder of this device holds any more,
    /// through the planner as new records; drops those that became items here meanwhile.
    func placeShadowedFolders(loop: inout EngineLoop) async throws(SyncError) {
        let waiting: [ShadowedFoldersPlanner.Waiting] = try readIndex { db in
            try Row.fetchAll(db, sql: """
                SELECT s.recordName, s.record,
                    NOT EXISTS (SELECT 1 FROM item i WHERE i.path = s.path AND i.kind = ? AND i.pending != 2) AS free,
                    EXISTS (SELECT 1 FROM item i WHERE i.recordName = s.recordName) AS known
                FROM shadowedFolder s
                """, arguments: [RecordType.folder.rawValue]).map { row in
                ShadowedFoldersPlanner.Waiting(recordName: row["recordName"], record: try? CompactCoding.decodeRecord(row["record"] as Data),
                                               pathFree: row["free"], known: row["known"])
            }
        }
        for decision in ShadowedFoldersPlanner.plan(waiting) {
            switch decision {
            case .forget(let name):
                try forgetShadowedFolders([name])
            case .place(let record):
                try forgetShadowedFolders([record.id.recordName])
                logger.debug("a waiting folder record's path is free; placing it", metadata: ["path": "\(record.path)", "record": "\(record.id.recordName)"])
                try await applyRemoteChange(.saved(record), loop: &loop)
            }
        }
    }
}
