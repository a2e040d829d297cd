import DocSyncCore
import GRDB

/// An item's row once the server acknowledged it: in Swift (`settle`) and in SQL (`settleItem`).
extension IndexItem {
    /// The row now matches `record`, which the server has.
    /// Keep in step with `Database.settleItem(named:acked:ifAt:)` below, which does the same in SQL.
    mutating func settle(acked record: DocSyncCore.Record) {
        acked = record
        pending = .none
        needsRead = false
        chunksUploaded = record.type == .document
        status.isUploaded = true
        status.isUploading = false
        status.percentUploaded = 100
        status.isDownloading = false
        status.percentDownloaded = 100
        status.downloadingStatus = "current"
        status.downloadingError = nil
        status.uploadingError = nil
    }

    /// The row's on-disk facts as a stat.
    var stat: FileStat { FileStat(kind: FileStat.Kind(kind), size: size, modified: modified, inode: inode, device: 0, mode: mode) }
}

extension Database {
    /// `IndexItem.settle` applied to the stored row named `recordName` if it is still at
    /// `revision`, without reading it: the server acknowledged `record` and nothing is
    /// pending (an item shown as a placeholder, saved because it moved, stays one). Otherwise (changed again meanwhile, so still pending) only its acknowledged
    /// record becomes `record`, the base of its next save. Nothing when there is no such row.
    func settleItem(named recordName: String, acked record: DocSyncCore.Record, ifAt revision: Int64) throws {
        let acked = CompactCoding.encode(record)
        let settle = try directStatement(sql: """
            UPDATE item SET acked = ?, lastEditorName = ?, pending = 0, needsRead = 0, chunksUploaded = ?, isUploaded = 1, isUploading = 0,
                percentUploaded = 100, isDownloading = 0,
                percentDownloaded = CASE downloadingStatus WHEN 'notDownloaded' THEN 0 ELSE 100 END,
                downloadingStatus = CASE downloadingStatus WHEN 'notDownloaded' THEN 'notDownloaded' ELSE 'current' END,
                downloadingError = NULL, uploadingError = NULL
            WHERE recordName = ? AND revision = ?
            """)
        settle.bind(1, acked)
        settle.bind(2, record.lastEditorName)
        settle.bind(3, record.type == .document)
        settle.bind(4, recordName)
        settle.bind(5, revision)
        try settle.execute()
        guard changesCount == 0 else { return }
        let rebase = try directStatement(sql: "UPDATE item SET acked = ?, lastEditorName = ? WHERE recordName = ?")
        rebase.bind(1, acked)
        rebase.bind(2, record.lastEditorName)
        rebase.bind(3, recordName)
        try rebase.execute()
    }
}
