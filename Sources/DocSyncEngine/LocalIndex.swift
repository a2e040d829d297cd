import DocSyncCore
import DocSyncStorage
import Foundation
import GRDB
import Synchronization

/// A folder's local index: one SQLite database (WAL) in the state directory holding every
/// item, where each known chunk lies on disk, the version store's catalogue and the
/// engine's own state (the change token).
///
/// One engine writes; status readers may read at any time from other tasks. Every method
/// is synchronous and short; `write` runs its body in one transaction, so what the body
/// changes (items, token) lands together or not at all.
public final class LocalIndex: Sendable {
    let pool: DatabasePool
    public let url: URL
    private let writes = Atomic<Int>(0)

    /// How many write transactions have committed through `write` since the index was opened:
    /// a reader that saw this number unchanged has nothing new to see.
    public var writeCount: Int { writes.load(ordering: .acquiring) }

    /// Opens (creating if needed) the index at `url`, migrating it to the current schema.
    public init(url: URL) throws {
        self.url = url
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.foreignKeysEnabled = true
        configuration.label = "docsync.index"
        // WAL with synchronous=NORMAL: a commit survives the daemon being killed at any
        // moment (the WAL is in the page cache); after a power loss the last commits may be
        // missing but the database is consistent, and the start-up scan finds those changes.
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            if !db.configuration.readonly {
                try db.execute(sql: WriteAheadLog.bulkFriendlyCheckpoints)
                // 7.5 page reads and 4.4 page writes per received file with SQLite's 2 MB
                // cache, measured with `strace` on 10,000 files; 2.6 and 2.3 with this.
                try db.execute(sql: WriteAheadLog.writerCacheSize)
            }
            db.addPredicateFunctions()
        }
        pool = try DatabasePool(path: url.path, configuration: configuration)
        try IndexSchema.migrator.migrateRefusingNewer(pool, what: "the index \(url.path)")
    }

    /// Runs `body` in one write transaction.
    @discardableResult
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        defer { writes.add(1, ordering: .releasing) }
        return try pool.write(body)
    }

    /// Runs `body` on a read-only snapshot.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try pool.read(body)
    }

    /// Runs `body` on the writer's connection (`DatabasePool.readOnWriter`): for the engine,
    /// the index's one writer, whose reads then find the pages its writes cached (on 10,000
    /// files, 25,000 page reads against 111,000 through `read`). Inside `write` it sees what
    /// that transaction has written so far. It waits while a write runs: status readers on
    /// other tasks use `read`.
    public func readLatest<T>(_ body: (Database) throws -> T) throws -> T {
        try pool.readOnWriter(body)
    }

    /// Frees the pages SQLite keeps in memory (the writer's cache, the reader connections,
    /// which reopen when next needed). Waits for current accesses to finish: call it when
    /// the engine is about to idle.
    public func releaseMemory() {
        pool.releaseMemory()
    }
}

/// Queries and updates of the index, usable inside `write` or `read`.
extension Database {
    func item(named recordName: String) throws -> IndexItem? {
        try IndexItem.fetchOne(cachedStatement(sql: "SELECT * FROM item WHERE recordName = ?"), arguments: [recordName])
    }

    /// The live item (not pending deletion) at `path`.
    func item(at path: RelativePath) throws -> IndexItem? {
        try IndexItem.fetchOne(cachedStatement(sql: "SELECT * FROM item WHERE path = ? AND pending != 2"), arguments: [path.string])
    }

    /// The live conflict copies beside `original` (`ConflictName`: same folder, made from its
    /// name), in path order.
    func conflictCopies(of original: RelativePath) throws -> [IndexItem] {
        let stem = ConflictName.split(original.name).stem
        let pattern = stem.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + " (conflict %"
        return try IndexItem.fetchAll(self, sql: "SELECT * FROM item WHERE pending != 2 AND name LIKE ? ESCAPE '\\' ORDER BY path",
                                      arguments: [pattern])
            .filter { $0.path.parent == original.parent && ConflictName.originalName(of: $0.path.name).bytesEqual(original.name) }
    }

    /// Whether the table `name` holds any row (the engine's side tables are nearly always empty).
    func hasRows(_ name: String) throws -> Bool {
        try Bool.fetchOne(self, sql: "SELECT EXISTS (SELECT 1 FROM \(name))") ?? false
    }

    /// Every row beneath `from` (not `from`'s own) now lies beneath `to`; with
    /// `pendingDeletionsOnly`, only the deletions waiting to be sent.
    func movePaths(beneath from: RelativePath, to: RelativePath, pendingDeletionsOnly: Bool = false) throws {
        try execute(sql: """
            UPDATE item SET path = ? || substr(path, ?) WHERE \(pendingDeletionsOnly ? "pending = 2 AND " : "")path >= ? AND path < ?
            """, arguments: [to.string, Self.characterPosition(after: from), from.string + "/", from.string + "0"])
    }

    /// Where the rest of a path beneath `prefix` starts, as SQLite's `substr` counts text:
    /// in characters (code points), not bytes — a folder's name is not always ASCII.
    static func characterPosition(after prefix: RelativePath) -> Int { prefix.string.unicodeScalars.count + 1 }

    /// Every row at `from` or beneath it now lies at `to` (a rename done on disk).
    func movePaths(from: RelativePath, to: RelativePath) throws {
        try execute(sql: """
            UPDATE item SET path = ? || substr(path, ?) WHERE path = ? OR (path >= ? AND path < ?)
            """, arguments: [to.string, Self.characterPosition(after: from), from.string, from.string + "/", from.string + "0"])
    }

    /// The row at `path` of kind `kind` whose deletion is pending (not yet sent), if any.
    func itemPendingDeletion(at path: RelativePath, kind: RecordType) throws -> IndexItem? {
        try IndexItem.fetchOne(cachedStatement(sql: "SELECT * FROM item WHERE path = ? AND pending = 2 AND kind = ?"), arguments: [path.string, kind.rawValue])
    }

    /// The on-disk facts the index holds for the live item at `path` (no JSON decoding): enough
    /// to tell that a watched path is unchanged, which is most of what the watcher reports.
    func itemFacts(at path: RelativePath) throws -> (kind: RecordType, stat: FileStat)? {
        guard let row = try Row.fetchOne(cachedStatement(sql: """
            SELECT kind, size, mtime, inode, mode FROM item WHERE path = ? AND pending != 2
            """), arguments: [path.string]), let kind = RecordType(rawValue: row[0]) else { return nil }
        return (kind, FileStat(indexed: kind, row, from: 1))
    }

    /// Every item at `path` or beneath it (all items for `nil`), including pending deletions.
    func items(under path: RelativePath?) throws -> [IndexItem] {
        guard let path else { return try IndexItem.fetchAll(self, sql: "SELECT * FROM item") }
        return try IndexItem.fetchAll(
            cachedStatement(sql: "SELECT * FROM item WHERE path = ? OR (path >= ? AND path < ?)"),
            arguments: [path.string, path.string + "/", path.string + "0"])  // "0" follows "/" in byte order
    }

    func deleteItem(named recordName: String) throws {
        try cachedStatement(sql: "DELETE FROM item WHERE recordName = ?").execute(arguments: [recordName])
    }

    // MARK: chunk locations

    /// Records where each chunk of `recordName`'s content lies in its file (replacing what was known).
    func setChunkLocations(of recordName: String, chunks: [ChunkRef]) throws {
        try cachedStatement(sql: "DELETE FROM chunkLocation WHERE recordName = ?").execute(arguments: [recordName])
        try addChunkLocations(of: recordName, chunks: chunks)
    }

    /// Records where each chunk of a new item's content lies (it has none recorded yet).
    func addChunkLocations(of recordName: String, chunks: [ChunkRef]) throws {
        let statement = try directStatement(sql: "INSERT INTO chunkLocation (digestKey, digest, recordName, offset, length) VALUES (?, ?, ?, ?, ?)")
        var offset: Int64 = 0
        for chunk in chunks {
            statement.bind(1, chunk.digest.indexKey)
            statement.bind(2, chunk.digest)
            statement.bind(3, recordName)
            statement.bind(4, offset)
            statement.bind(5, Int64(chunk.length))
            try statement.execute()
            offset += Int64(chunk.length)
        }
    }

    /// The chunks recorded for `recordName`'s content, in file order (empty when none are).
    func recordedChunks(of recordName: String) throws -> [ChunkRef] {
        let statement = try cachedStatement(sql: "SELECT digest, length FROM chunkLocation WHERE recordName = ? ORDER BY offset")
        var chunks: [ChunkRef] = []
        let rows = try Row.fetchCursor(statement, arguments: [recordName])
        while let row = try rows.next() {
            if let digest = SHA256Digest(bytes: row[0] as Data) { chunks.append(ChunkRef(digest: digest, length: row[1])) }
        }
        return chunks
    }

    /// Places on this machine where each of `digests` may be read (to be verified before use).
    func chunkLocations(of digests: [SHA256Digest]) throws -> [SHA256Digest: [(path: RelativePath, offset: Int64, length: Int)]] {
        var places: [SHA256Digest: [(path: RelativePath, offset: Int64, length: Int)]] = [:]
        let statement = try directStatement(sql: """
            SELECT item.path, chunkLocation.offset, chunkLocation.length FROM chunkLocation
            JOIN item ON item.recordName = chunkLocation.recordName
            WHERE chunkLocation.digestKey = ? AND chunkLocation.digest = ? AND item.pending != 2 LIMIT 4
            """)
        for digest in Set(digests) {
            statement.bind(1, digest.indexKey)
            statement.bind(2, digest)
            try statement.forEachRow { row in
                places[digest, default: []].append((RelativePath(row.text(0)), row.integer(1), Int(row.integer(2))))
            }
        }
        return places
    }

    // MARK: engine state

    func engineValue(_ key: String) throws -> Data? {
        try Data.fetchOne(self, sql: "SELECT value FROM engineState WHERE key = ?", arguments: [key])
    }

    /// The stored change token; `nil` when there is none or it cannot be decoded (the next
    /// fetch then starts from the beginning).
    func changeToken() throws -> ChangeToken? {
        guard let data = try engineValue(EngineKeys.changeToken) else { return nil }
        return try? WireCoding.decoder.decode(ChangeToken.self, from: data)
    }

    /// Stores `token` as the change token (`nil`: none, the next fetch starts from the beginning).
    func setChangeToken(_ token: ChangeToken?) throws {
        try setEngineValue(EngineKeys.changeToken, try token.map { try WireCoding.encoder.encode($0) })
    }

    func setEngineValue(_ key: String, _ value: Data?) throws {
        if let value {
            try execute(sql: "INSERT OR REPLACE INTO engineState (key, value) VALUES (?, ?)", arguments: [key, value])
        } else {
            try execute(sql: "DELETE FROM engineState WHERE key = ?", arguments: [key])
        }
    }
}

extension FileStat {
    /// The on-disk facts an index row holds for an item of `kind`: its `size, mtime, inode,
    /// mode` columns, selected in that order from column `offset` of `row` (no device is kept).
    init(indexed kind: RecordType, _ row: Row, from offset: Int) {
        self.init(kind: FileStat.Kind(kind), size: row[offset], modified: Timestamp(nanosecondsSince1970: row[offset + 1]),
                  inode: UInt64(bitPattern: row[offset + 2] as Int64), device: 0, mode: UInt32(row[offset + 3] as Int64))
    }
}
