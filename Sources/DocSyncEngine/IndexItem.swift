import DocSyncCore
import DocSyncStorage
import Foundation
import GRDB

/// One row of the local index: an item as it is on this device, the record the server
/// last acknowledged for it, and what is pending.
///
/// The fields `kind`…`symlinkTarget` describe the local item; `acked` is the merge ancestor
/// and is only ever a record the server accepted (or sent). A row with `pending == .delete`
/// describes an item that is gone locally until the server confirms the deletion.
public struct IndexItem: Hashable, Sendable {
    public enum Pending: Int, Sendable, Hashable, Codable {
        case none = 0, save = 1, delete = 2
    }

    public var recordName: String
    public var path: RelativePath
    public var kind: RecordType
    public var size: Int64
    public var modified: Timestamp
    public var inode: UInt64
    public var mode: UInt32
    public var digest: SHA256Digest?
    public var asset: AssetReference?
    public var symlinkTarget: String?
    public var acked: DocSyncCore.Record?
    public var pending: Pending
    public var needsRead: Bool
    public var chunksUploaded: Bool
    public var revision: Int64
    public var status: ItemTransferStatus

    public init(recordName: String, path: RelativePath, kind: RecordType, stat: FileStat) {
        self.recordName = recordName
        self.path = path
        self.kind = kind
        self.size = kind == .folder ? 0 : stat.size
        self.modified = stat.modified
        self.inode = stat.inode
        self.mode = stat.mode
        self.acked = nil
        self.pending = .save
        self.needsRead = kind != .folder
        self.chunksUploaded = false
        self.revision = 1
        self.status = ItemTransferStatus()
    }

    /// Takes the on-disk facts of `stat` (after a write, rename or scan).
    public mutating func take(_ stat: FileStat) {
        if kind != .folder { size = stat.size }
        modified = stat.modified
        inode = stat.inode
        mode = stat.mode
    }

    /// True when `stat` shows the same item in the same state as this row (no local change).
    /// Folders compare only inode and mode: their mtime moves whenever an entry is added.
    public func matches(_ stat: FileStat) -> Bool {
        IndexItem.facts(self.stat, kind: kind, match: stat)
    }

    /// The rule of `matches`, for facts read without the whole row.
    static func facts(_ known: FileStat, kind: RecordType, match stat: FileStat) -> Bool {
        guard FileStat.Kind(kind) == stat.kind, known.inode == stat.inode, known.mode == stat.mode else { return false }
        if kind == .folder { return true }
        return known.size == stat.size && known.modified == stat.modified
    }

    /// The record this row would send: the local fields, based on the acknowledged tag.
    public func record(zone: ZoneID, device: String) -> DocSyncCore.Record {
        DocSyncCore.Record(
            id: RecordID(zone: zone, recordName: recordName), type: kind, changeTag: acked?.changeTag, path: path,
            size: kind == .folder ? 0 : size, modified: modified, mode: mode,
            contentDigest: kind == .document ? digest : nil, asset: kind == .document ? asset : nil,
            symlinkTarget: kind == .symlink ? symlinkTarget : nil,
            lastModifiedBy: device)
    }

    /// Takes every field of `record` (a record applied from the server, or a merge result).
    public mutating func take(_ record: DocSyncCore.Record) {
        path = record.path
        kind = record.type
        size = record.size
        modified = record.modified
        mode = record.mode
        digest = record.contentDigest
        asset = record.asset
        symlinkTarget = record.symlinkTarget
    }
}

/// The transfer and status fields of SPEC §6 kept for every item.
public struct ItemTransferStatus: Hashable, Sendable {
    public var downloadingStatus: String = "current"
    public var isDownloading = false
    public var percentDownloaded: Double = 100
    public var isUploading = false
    public var isUploaded = false
    public var percentUploaded: Double = 0
    public var downloadingError: String?
    public var uploadingError: String?
    public var hasUnresolvedConflicts = false

    public init() {}
}

extension FileStat.Kind {
    init(_ type: RecordType) {
        switch type {
        case .document: self = .file
        case .folder: self = .directory
        case .symlink: self = .symlink
        case .value, .sealed: self = .special  // never in a folder's index: a Value is no file, a sealed record is opened first
        }
    }
}

extension RecordType {
    /// The record type for an item of this kind, or `nil` for special files (never synced).
    init?(_ kind: FileStat.Kind) {
        switch kind {
        case .file: self = .document
        case .directory: self = .folder
        case .symlink: self = .symlink
        case .special: return nil
        }
    }
}

extension IndexItem: FetchableRecord, TableRecord {
    public static let databaseTableName = "item"

    /// Decodes a row whose last columns are the whole item row in schema order: every
    /// query reading items selects `*` (after any columns of its own), and `columns` is
    /// the table's column list (`LocalIndexTests` checks the two agree). Reading by position
    /// spares a by-name lookup per column, which the engine would pay for thousands of rows.
    public init(row: Row) throws {
        let base = row.count - IndexItem.columns.count
        precondition(base >= 0, "an item row needs all \(IndexItem.columns.count) columns of table item")
        recordName = row[base]
        path = RelativePath(row[base + 1] as String)
        // base + 2 is `name`, derived from the path.
        kind = RecordType(rawValue: row[base + 3]) ?? .document
        size = row[base + 4]
        modified = Timestamp(nanosecondsSince1970: row[base + 5])
        inode = UInt64(bitPattern: row[base + 6] as Int64)
        mode = UInt32(row[base + 7] as Int64)
        digest = (row[base + 8] as String?).flatMap { SHA256Digest(hex: $0) }
        asset = try (row[base + 9] as Data?).map { try CompactCoding.decodeAssetReference($0) }
        symlinkTarget = row[base + 10]
        acked = try (row[base + 11] as Data?).map { try CompactCoding.decodeRecord($0) }
        pending = Pending(rawValue: row[base + 12]) ?? .save
        needsRead = row[base + 13]
        chunksUploaded = row[base + 14]
        revision = row[base + 15]
        status = ItemTransferStatus()
        status.downloadingStatus = row[base + 16]
        status.isDownloading = row[base + 17]
        status.percentDownloaded = row[base + 18]
        status.isUploading = row[base + 19]
        status.isUploaded = row[base + 20]
        status.percentUploaded = row[base + 21]
        status.downloadingError = row[base + 22]
        status.uploadingError = row[base + 23]
        status.hasUnresolvedConflicts = row[base + 24]
        // base + 25 is `lastEditorName`, derived from `acked`.
    }

    /// The columns of table `item`, in schema order.
    static let columns = ["recordName", "path", "name", "kind", "size", "mtime", "inode", "mode", "digest", "asset",
                          "symlinkTarget", "acked", "pending", "needsRead", "chunksUploaded", "revision",
                          "downloadingStatus", "isDownloading", "percentDownloaded", "isUploading", "isUploaded",
                          "percentUploaded", "downloadingError", "uploadingError", "hasUnresolvedConflicts", "lastEditorName"]
    /// Both name the columns after `recordName` first, in schema order, then `recordName`.
    private static let insertSQL = "INSERT INTO item (\(columns.dropFirst().joined(separator: ", ")), recordName) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
    private static let updateSQL = "UPDATE item SET \(columns.dropFirst().map { "\($0) = ?" }.joined(separator: ", ")) WHERE recordName = ?"

    /// Inserts the row, its values bound in place (the index writes thousands of rows per sync).
    public func insert(_ db: Database) throws { try run(IndexItem.insertSQL, in: db) }

    /// Updates every column of the row with this record name, its values bound in place.
    public func update(_ db: Database) throws { try run(IndexItem.updateSQL, in: db) }

    /// Runs `insertSQL` or `updateSQL` with this item's values: every column after
    /// `recordName` in schema order, then `recordName`.
    private func run(_ sql: String, in db: Database) throws {
        let statement = try db.directStatement(sql: sql)
        for (position, column) in IndexItem.boundColumns.enumerated() { column.bind(self, statement, Int32(position + 1)) }
        statement.bind(Int32(IndexItem.boundColumns.count + 1), recordName)
        try statement.execute()
    }
}
