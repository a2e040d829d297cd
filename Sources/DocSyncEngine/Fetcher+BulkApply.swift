import DocSyncCore
import Foundation
import GRDB

/// Applying the plainly new items of a fetched page together: folders this device has never
/// seen, and new documents already written ahead, whose paths are free here. Each is put in
/// place without replacing anything (`mkdir`, `renameat2(RENAME_NOREPLACE)`), and all their
/// rows go into the index in one transaction — with the page's change token when nothing
/// else in the page needs applying. Anything that does not fit (a collision, a symlink, a
/// known item, a path taken meanwhile) is left to `applyRemote`, one record at a time.
///
/// A crash after some renames but before the transaction leaves files the index does not
/// know; the page is fetched again and `applyRemote` adopts each file whose content matches.
extension Fetcher {
    /// Applies what it can of `ordered` (folders first, shallow before deep). Returns the
    /// record names it applied, and whether it stored `token` (only when it applied the whole
    /// page: `complete` says the page holds nothing besides `ordered`).
    func applyNewInBulk(_ ordered: [DocSyncCore.Record], token: ChangeToken?, complete: Bool,
                        loop: inout EngineLoop) throws(SyncError) -> (applied: Set<String>, tokenStored: Bool) {
        let candidates = try freshRecords(ordered, scanner: loop.scanner)
        guard !candidates.isEmpty else { return ([], false) }
        var rows: [(row: IndexItem, chunks: [ChunkRef]?)] = []
        for record in candidates {
            let target = absolute(record.path)
            switch record.type {
            case .folder:
                guard let made = try? Materializer.makeParents(of: record.path, root: configuration.root.path, in: fileSystem) else { continue }
                loop.rememberCreated(made)
                do { try fileSystem.makeDirectory(target, mode: record.mode) } catch {
                    guard error.code == EEXIST, ((try? fileSystem.status(target)) ?? nil)?.kind == .directory else { continue }
                }
                try? fileSystem.setMode(target, record.mode)
                guard let stat = try? fileSystem.status(target), stat.kind == .directory else { continue }
                loop.createdDirectories.remove(record.path)
                rows.append((settledRow(record, stat: stat), nil))
            case .document:
                guard let file = engine.executor.takePrepared(record, at: target, loop: &loop) else { continue }
                guard Materializer.renameWithoutReplacing(file.temporary, target, in: fileSystem) == 0 else {
                    try? fileSystem.removeFile(file.temporary)
                    continue
                }
                rows.append((settledRow(record, stat: file.written), file.chunks))
            case .symlink, .value, .sealed:
                continue
            }
        }
        // Every new name durable before the index records it: one flush per directory, or of
        // the whole file system when the names are spread over many (a page of a new tree:
        // one `syncfs` costs less than hundreds of directory fsyncs, each a flush of the disk's cache).
        let directories = Set(rows.map { PathKey(Materializer.directory(of: absolute($0.row.path))) })
        if directories.count <= Self.directoriesFlushedOneByOne || !fileSystem.flushFileSystem(containing: configuration.root.path) {
            for directory in directories.sorted() { try? fileSystem.flushDirectory(directory.string) }
        }
        let applied = Set(rows.map(\.row.recordName))
        let storeToken = complete && applied.count == ordered.count
        try writeIndex { db in
            for (row, chunks) in rows {
                try row.insert(db)
                if let chunks { try db.addChunkLocations(of: row.recordName, chunks: chunks) }
            }
            try db.refreshConflictFlags(around: rows.map(\.row.path))
            if storeToken { try db.setChangeToken(token) }
        }
        for (row, _) in rows { engine.clearProblem(at: row.path.string) }
        let bytes = rows.reduce(Int64(0)) { $0 + $1.row.size }
        engine.updateLive { $0.pendingDownloads -= rows.count; $0.pendingDownloadBytes -= bytes }
        return (applied, storeToken)
    }

    /// At most this many directories' new names are flushed one directory at a time; more,
    /// and the file system is flushed once instead.
    static let directoriesFlushedOneByOne = 8

    /// The records of `records` (a page's saves, in order) that are plainly new here
    /// (`RemotePagePlanner.plainlyNew`), from what the index and the ignore rules say of each.
    private func freshRecords(_ records: [DocSyncCore.Record], scanner: FolderScanner) throws(SyncError) -> [DocSyncCore.Record] {
        let facts = try readIndex { db in
            let named = try db.cachedStatement(sql: "SELECT 1 FROM item WHERE recordName = ?")
            let atPath = try db.cachedStatement(sql: "SELECT 1 FROM item WHERE path = ? AND pending != 2")
            var facts: [String: RemotePagePlanner.NewRecordFacts] = [:]
            for record in RemotePagePlanner.factsNeeded(records, onDemand: configuration.onDemand) {
                facts[record.id.recordName] = RemotePagePlanner.NewRecordFacts(
                    known: try Bool.fetchOne(named, arguments: [record.id.recordName]) != nil,
                    pathTaken: try Bool.fetchOne(atPath, arguments: [record.path.string]) != nil,
                    ignored: scanner.isIgnored(record.path, isDirectory: record.type == .folder))
            }
            return facts
        }
        return RemotePagePlanner.plainlyNew(records, facts: facts, onDemand: configuration.onDemand)
    }

    /// The index row of a remote item just put in place, acknowledged and settled.
    private func settledRow(_ record: DocSyncCore.Record, stat: FileStat) -> IndexItem {
        var row = IndexItem(recordName: record.id.recordName, path: record.path, kind: record.type, stat: stat)
        row.take(record)
        row.take(stat)
        row.settle(acked: record)
        return row
    }
}
