import DocSyncCore
import Foundation
import GRDB

/// Files kept local on an on-demand folder (SPEC §14): pinned documents are downloaded and
/// never evicted by the cache limit; `download` pins, `evict` unpins.
extension FolderEngine {
    /// Pins the document at `path`, or every document beneath the folder at `path`, and
    /// downloads what is not local. One outcome per document.
    func pin(_ path: RelativePath, loop: inout EngineLoop) async -> [ActionOutcome] {
        let documents: [IndexItem]
        do { documents = try documentRows(at: path) } catch { return [outcome(path, false, error.message)] }
        guard !documents.isEmpty else { return [outcome(path, false, "no such item")] }
        var outcomes: [ActionOutcome] = []
        for row in documents {
            do { try setPinned(true, recordName: row.recordName) } catch {
                outcomes.append(outcome(row.path, false, error.message))
                continue
            }
            outcomes.append(row.isPlaceholder ? await download(row.path, pin: false, loop: &loop) : outcome(row.path, true, "kept local"))
        }
        return outcomes
    }

    /// Unpins the document at `path`, or every document beneath the folder at `path`.
    func unpin(_ path: RelativePath) -> [ActionOutcome] {
        let documents: [IndexItem]
        do { documents = try documentRows(at: path) } catch { return [outcome(path, false, error.message)] }
        guard !documents.isEmpty else { return [outcome(path, false, "no such item")] }
        var outcomes: [ActionOutcome] = []
        for row in documents {
            do throws(SyncError) {
                try setPinned(false, recordName: row.recordName)
                outcomes.append(outcome(row.path, true))
            } catch {
                outcomes.append(outcome(row.path, false, error.message))
            }
        }
        return outcomes
    }

    /// Whether the item at `path` is pinned.
    public func isPinned(_ path: RelativePath) -> Bool {
        (try? index.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM pin JOIN item USING (recordName) WHERE item.path = ?)", arguments: [path.string])
        }) ?? nil ?? false
    }

    /// The bytes of content this device holds for the folder's documents.
    public func localContentSize() -> Int64 {
        (try? index.read { db in
            try Int64.fetchOne(db, sql: "SELECT COALESCE(SUM(size), 0) FROM item WHERE kind = ? AND downloadingStatus != ? AND pending != 2",
                               arguments: [RecordType.document.rawValue, Placeholder.notDownloaded])
        }) ?? nil ?? 0
    }

    /// Local documents the cache limit may evict: not pinned, nothing pending, the server's
    /// version uploaded — by path, with size and modification time.
    public func evictableDocuments() -> [(path: RelativePath, size: Int64, modified: Timestamp)] {
        let rows = (try? index.read { db in
            try IndexItem.fetchAll(db, sql: """
                SELECT \(IndexItem.columns.joined(separator: ", ")) FROM item
                WHERE kind = ? AND downloadingStatus != ? AND pending = 0 AND isUploaded = 1
                  AND recordName NOT IN (SELECT recordName FROM pin)
                """, arguments: [RecordType.document.rawValue, Placeholder.notDownloaded])
        }) ?? []
        return rows.filter { $0.acked?.contentDigest == $0.digest }.map { ($0.path, $0.size, $0.modified) }
    }

    func setPinned(_ pinned: Bool, recordName: String) throws(SyncError) {
        try writeIndex { db in
            if pinned {
                try db.execute(sql: "INSERT OR IGNORE INTO pin (recordName) VALUES (?)", arguments: [recordName])
            } else {
                try db.execute(sql: "DELETE FROM pin WHERE recordName = ?", arguments: [recordName])
            }
        }
    }

    /// The live documents at `path` or beneath it.
    private func documentRows(at path: RelativePath) throws(SyncError) -> [IndexItem] {
        try readIndex { db in
            guard let row = try db.item(at: path) else { return [] }
            if row.kind == .document { return [row] }
            let prefix = path.string + "/"
            return try IndexItem.fetchAll(db, sql: """
                SELECT \(IndexItem.columns.joined(separator: ", ")) FROM item
                WHERE kind = ? AND pending != 2 AND substr(path, 1, ?) = ?
                """, arguments: [RecordType.document.rawValue, prefix.utf8.count, prefix])
        }
    }

    private func outcome(_ path: RelativePath, _ done: Bool, _ message: String? = nil) -> ActionOutcome {
        ActionOutcome(folder: configuration.zone.name, path: path.string, done: done, message: message)
    }
}
