import DocSyncCore
import GRDB

/// Counts for status, from the index.
struct IndexCounts {
    var items = 0
    var pendingUploads = 0
    var pendingUploadBytes: Int64 = 0
    var conflicts = 0
    var problems: [ItemProblem] = []

    /// Items waiting to be sent and the bytes of the files among them: read from the
    /// covering `item_pending` index (migrations v4, v6). Deletions are counted only when
    /// `deletionsReleased` (the brake does not hold them), and carry no bytes: the rows of
    /// `FolderEngine.sendableCondition(deletionsReleased:)`.
    static func pendingUploadsSQL(deletionsReleased: Bool) -> String {
        "SELECT COUNT(*), COALESCE(SUM(CASE WHEN pending = 1 THEN size ELSE 0 END), 0) FROM item WHERE "
            + FolderEngine.sendableCondition(deletionsReleased: deletionsReleased)
    }

    static func fetch(_ db: GRDB.Database, deletionsReleased: Bool = true) throws -> IndexCounts {
        var counts = IndexCounts()
        // Each query reads a narrow or partial index (migration v3), not the item rows.
        counts.items = try Int.fetchOne(db, sql: "SELECT (SELECT COUNT(*) FROM item) - (SELECT COUNT(*) FROM item WHERE pending = 2)") ?? 0
        if let row = try Row.fetchOne(db, sql: IndexCounts.pendingUploadsSQL(deletionsReleased: deletionsReleased)) {
            counts.pendingUploads = row[0]
            counts.pendingUploadBytes = row[1]
        }
        counts.conflicts = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE hasUnresolvedConflicts") ?? 0
        counts.problems = try Row.fetchAll(db, sql: "SELECT path, uploadingError FROM item WHERE uploadingError IS NOT NULL UNION ALL SELECT path, downloadingError FROM item WHERE downloadingError IS NOT NULL")
            .map { ItemProblem(path: $0[0], message: $0[1]) }
        return counts
    }
}
