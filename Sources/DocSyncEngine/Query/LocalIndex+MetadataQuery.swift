import DocSyncCore
import GRDB

extension LocalIndex {
    /// The live items (not pending deletion) for which `predicate` holds, in path order
    /// (UTF-8 byte order), at most `limit` of them. The predicate runs in SQLite and selects
    /// exactly the rows for which `predicate.evaluate(item)` is true.
    /// `sharing` is the folder's place in a share: the share's attributes are the same for
    /// every item.
    public func items(matching predicate: MetadataPredicate, limit: Int? = nil, sharing: SharedFolderFacts? = nil) throws -> [IndexItem] {
        try read { db in try db.items(matching: predicate, limit: limit, sharing: sharing) }
    }

    /// As `items(matching:limit:)`, reading only the path and the SPEC §6 attributes of each
    /// row (no records or assets to decode): what a query for display needs.
    public func metadata(matching predicate: MetadataPredicate, limit: Int? = nil, sharing: SharedFolderFacts? = nil) throws -> [MetadataItem] {
        try read { db in try db.metadata(matching: predicate, limit: limit, sharing: sharing) }
    }
}

extension MetadataAttribute {
    /// The attribute's SQL over table `item`: its column, quoted (`modified` is `mtime`, the
    /// others have their own names), or a constant for what no row holds — NULL for
    /// Recently Deleted's, the folder's value (from `sharing`) for a share's.
    func itemColumn(sharing: SharedFolderFacts?) -> String {
        switch self {
        case .modified: "\"mtime\""
        case .deletedAt, .deletedBy: "NULL"  // no live item is deleted
        case .isShared, .role, .permissions, .ownerName:
            switch SharedFolderFacts.value(of: self, sharing) {
            case .bool(let value)?: value ? "1" : "0"
            case .string(let text)?: "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
            default: "NULL"
            }
        default: "\"\(rawValue)\""
        }
    }
}

extension Database {
    /// The attributes whose extension an index holds (`item_name_extension`).
    static let indexedExtensions: Set<MetadataAttribute> = [.name]

    /// `SELECT <columns> FROM item WHERE <live and predicate> ORDER BY path [LIMIT n]`.
    static func query(_ columns: String, _ predicate: MetadataPredicate, limit: Int?, sharing: SharedFolderFacts? = nil) -> (String, StatementArguments) {
        let (condition, arguments) = PredicateSQL.compile(predicate, indexedExtensions: Self.indexedExtensions) { $0.itemColumn(sharing: sharing) }
        // The covering index item_metadata holds every column a metadata query reads, in path
        // order: SQLite walks it alone, never the wide item rows. Whole rows (`*`) are sorted
        // after the scan instead (`+path`): walking the index would look each row up by key.
        let order = columns == "*" ? "+path" : "path"
        var sql = "SELECT \(columns) FROM item WHERE pending <> 2 AND (\(condition)) ORDER BY \(order)"
        if let limit { sql += " LIMIT \(max(0, limit))" }
        let values: [(any DatabaseValueConvertible)?] = arguments.map { argument in
            switch argument {
            case .text(let text): text
            case .integer(let integer): integer
            case .double(let double): double
            case .null: nil
            }
        }
        return (sql, StatementArguments(values))
    }

    /// See `LocalIndex.items(matching:limit:)`; usable inside `read` or `write`.
    func items(matching predicate: MetadataPredicate, limit: Int? = nil, sharing: SharedFolderFacts? = nil) throws -> [IndexItem] {
        let (sql, arguments) = Self.query("*", predicate, limit: limit, sharing: sharing)
        return try IndexItem.fetchAll(self, sql: sql, arguments: arguments)
    }

    /// See `LocalIndex.metadata(matching:limit:)`; usable inside `read` or `write`.
    func metadata(matching predicate: MetadataPredicate, limit: Int? = nil, sharing: SharedFolderFacts? = nil) throws -> [MetadataItem] {
        let columns = "recordName, path, kind, size, mtime, downloadingStatus, isDownloading, percentDownloaded, "
            + "isUploading, isUploaded, percentUploaded, downloadingError, uploadingError, hasUnresolvedConflicts, lastEditorName"
        let (sql, arguments) = Self.query(columns, predicate, limit: limit, sharing: sharing)
        // A cursor reads each row in place (no copies); the statement is cached per SQL text.
        let rows = try Row.fetchCursor(cachedStatement(sql: sql), arguments: arguments)
        var items: [MetadataItem] = []
        while let row = try rows.next() {
            var status = ItemTransferStatus()
            status.downloadingStatus = row[5]
            status.isDownloading = row[6]
            status.percentDownloaded = row[7]
            status.isUploading = row[8]
            status.isUploaded = row[9]
            status.percentUploaded = row[10]
            status.downloadingError = row[11]
            status.uploadingError = row[12]
            status.hasUnresolvedConflicts = row[13]
            items.append(MetadataItem(recordName: row[0], path: RelativePath(row[1] as String), kind: RecordType(rawValue: row[2]) ?? .document,
                                      size: row[3], modified: Timestamp(nanosecondsSince1970: row[4]), status: status,
                                      sharing: sharing, lastEditorName: row[14]))
        }
        return items
    }
}
