import DocSyncCore
import DocSyncStorage
import Foundation
import GRDB

/// The executor's steps that put remote records on disk (SPEC §3): placing a record, moving
/// an item, setting its metadata, settling its row.
extension Executor {

    /// The unindexed directory at `server.path` (made for the items inside it, or by hand)
    /// becomes the folder `server`.
    func adoptDirectory(_ server: DocSyncCore.Record, loop: inout EngineLoop) throws(SyncError) {
        guard let stat = try? fileSystem.status(absolute(server.path)), stat.kind == .directory else { throw localChangeMidway(server.path) }
        var row = IndexItem(recordName: server.id.recordName, path: server.path, kind: .folder, stat: stat)
        if stat.mode != server.mode { try? fileSystem.setMode(absolute(server.path), server.mode) }
        row.take(server)
        if let now = try? fileSystem.status(absolute(server.path)) { row.take(now) }
        row.settle(acked: server)
        let adopted = row
        try writeIndex { db in try adopted.insert(db) }
        loop.createdDirectories.remove(server.path)
    }

    /// Writes `server` at its path over `replacing` (or into an empty place) and stores its row.
    func place(_ server: DocSyncCore.Record, replacing expected: IndexItem?, loop: inout EngineLoop) async throws(SyncError) {
        switch try await write(server, at: server.path, expected: expected, keepReplacedAs: expected == nil ? nil : .overwritten, loop: &loop) {
        case .targetChanged:
            throw localChangeMidway(server.path)
        case .written(let stat, let chunks):
            var row = IndexItem(recordName: server.id.recordName, path: server.path, kind: server.type, stat: stat)
            row.take(server)
            row.take(stat)
            row.settle(acked: server)
            let final = row
            try writeIndex { db in
                try db.deleteItem(named: final.recordName)
                try final.insert(db)
                if let chunks { try db.setChunkLocations(of: final.recordName, chunks: chunks) }
                try db.refreshConflictFlags(around: [final.path])
            }
        }
    }

    /// Renames the item's file (and, for a folder, the paths of everything beneath it in the
    /// index) to `path`. Returns false when something else is already there — except, for a
    /// folder, a directory the engine made there for remote items and no item claims: the
    /// folder's entries move into it, and it becomes the folder.
    ///
    /// A folder whose record moved inside its own old path (moves made apart on two devices
    /// that together form a cycle) cannot take its entries along: a directory is made for it
    /// at `path`, and what was inside stays where it is, following its own records; the
    /// directory left behind is one the engine made, for whichever record takes that path.
    func move(_ row: inout IndexItem, to path: RelativePath, loop: inout EngineLoop) throws(SyncError) -> Bool {
        let from = absolute(row.path), to = absolute(path)
        if row.kind == .folder, path.isBeneath(row.path) {
            if let there = (try? fileSystem.status(to)) ?? nil {
                // A directory no item claims (made for the folder's items that came first) becomes it.
                guard there.kind == .directory, try readIndex({ db in try db.item(at: path) }) == nil else { return false }
                loop.createdDirectories.remove(path)
                loop.createdDirectories.insert(row.path)
            } else {
                let made = try Materializer.makeParents(of: path, root: configuration.root.path, in: fileSystem)
                do { try fileSystem.makeDirectory(to, mode: row.mode) } catch {
                    if error.code == EEXIST { return false }
                    throw Materializer.failure("make the folder", path.string, code: error.code)
                }
                // Durable before anything moves into it: a power cut must not take it, and
                // what a later move puts inside, away.
                try? fileSystem.flushDirectory(String(Materializer.directory(of: to)))
                loop.rememberCreated(made + [row.path])
            }
            logger.notice("a folder's record moved inside its own old place (moves made apart on two devices); its entries stay and follow their own records",
                          metadata: ["path": "\(path)", "from": "\(row.path)"])
            if let made = (try? fileSystem.status(to)) ?? nil { row.inode = made.inode }
            row.path = path
            return true
        }
        var asides: [(from: RelativePath, to: RelativePath)] = []
        if let there = (try? fileSystem.status(to)) ?? nil {
            let claimedBy = try readIndex({ db in try db.item(at: path) })
            guard row.kind == .folder, there.kind == .directory, loop.createdDirectories.contains(path),
                  claimedBy == nil, try mergeDirectory(row.path, into: path, asides: &asides, loop: &loop) else {
                logger.debug("a move's target is taken", metadata: ["path": "\(path)", "from": "\(row.path)",
                                                                   "by": "\(claimedBy.map { "\($0.kind.rawValue) \($0.recordName) pending \($0.pending)" } ?? "an unindexed \(there.kind)")"])
                return false
            }
            loop.createdDirectories.remove(path)
            row.inode = there.inode
            row.mode = there.mode
        } else {
            let made = try Materializer.makeParents(of: path, root: configuration.root.path, in: fileSystem)
            loop.rememberCreated(made)
            // Whatever appeared at `to` since the look above stays: the move is then given up.
            let code = Materializer.moveIfFree(from, to, in: fileSystem)
            guard code == 0 else {
                if code == ENOENT || code == EEXIST {
                    logger.debug("a move found its source gone or its target just taken", metadata: ["path": "\(path)", "from": "\(row.path)", "errno": "\(code)"])
                    return false
                }
                throw Materializer.failure("move \(row.path) to", path.string, code: code)
            }
        }
        let old = row.path
        row.path = path
        if row.kind == .folder {
            try writeIndex { db in
                // Their own records may not have moved (`sendStrandedItems`, after the fetch):
                // remembered with the move, so a crash before then does not strand them.
                try db.execute(sql: "INSERT OR IGNORE INTO carriedAlong (recordName) SELECT recordName FROM item WHERE path >= ? AND path < ?",
                               arguments: [old.string + "/", old.string + "0"])
                // Entries moved aside in the merge first: their new paths leave the old prefix.
                for aside in asides { try db.movePaths(from: aside.from, to: aside.to) }
                try db.movePaths(beneath: old, to: path)
            }
            // Documents written ahead inside it moved with it.
            for (name, file) in loop.preparedFiles where file.temporary.hasBytePrefix(from + "/") {
                loop.preparedFiles[name]?.temporary = to + String(decoding: file.temporary.utf8.dropFirst(from.utf8.count), as: UTF8.self)
            }
        }
        return true
    }

    /// Moves every entry of the directory `from` into the directory `into` and removes
    /// `from`. An entry whose name is taken there merges the same way when both are
    /// directories and the one there is a directory the engine made that no item claims;
    /// otherwise it moves in under a free conflict-copy name, listed in `asides` (its items
    /// then send their new place, as every item a folder's move carries does). False when an
    /// entry cannot be moved at all: what moved stays moved, and the next scan records it.
    private func mergeDirectory(_ from: RelativePath, into: RelativePath, asides: inout [(from: RelativePath, to: RelativePath)],
                                loop: inout EngineLoop) throws(SyncError) -> Bool {
        let names: [[UInt8]]
        do { names = try fileSystem.entryNames(absolute(from)) } catch { return false }
        for name in names {
            let entry = String(decoding: name, as: UTF8.self)
            let source = RelativePath(from.string + "/" + entry), target = RelativePath(into.string + "/" + entry)
            if Materializer.moveIfFree(absolute(source), absolute(target), in: fileSystem) == 0 { continue }
            guard let found = (try? fileSystem.status(absolute(source))) ?? nil else { continue }  // gone meanwhile
            if found.kind == .directory, ((try? fileSystem.status(absolute(target))) ?? nil)?.kind == .directory,
               loop.createdDirectories.contains(target), try readIndex({ db in try db.item(at: target) }) == nil {
                guard try mergeDirectory(source, into: target, asides: &asides, loop: &loop) else { return false }
                loop.createdDirectories.remove(target)
                continue
            }
            let aside = try readIndex { db in
                ConflictName.copyPath(for: target, device: engine.copyLabel, time: found.modified) { candidate in
                    (((try? fileSystem.status(absolute(candidate))) ?? nil) != nil) || ((try? db.item(at: candidate)) ?? nil) != nil
                }
            }
            guard Materializer.moveIfFree(absolute(source), absolute(aside), in: fileSystem) == 0 else {
                logger.debug("a folder's entry could not move into the directory made for its items", metadata: ["path": "\(target)", "from": "\(source)"])
                return false
            }
            logger.notice("conflict: a moved folder's entry met another item of its name; kept beside it", metadata: ["path": "\(target)", "copy": "\(aside)"])
            asides.append((source, aside))
        }
        try? fileSystem.removeDirectory(absolute(from))
        return true
    }

    /// Sets a local item's mode and modification time to the remote values; returns the
    /// item's state as the index must remember it — computed, not re-read, so an edit made
    /// meanwhile still shows as a change.
    func adjustMetadata(of row: IndexItem, mode: UInt32, modified: Timestamp) -> FileStat {
        var stat = row.stat
        if row.mode != mode, (try? fileSystem.setMode(absolute(row.path), mode)) != nil { stat.mode = mode }
        if row.kind == .document, row.modified != modified {
            try? fileSystem.setModified(absolute(row.path), modified)
            stat.modified = modified
        }
        return stat
    }

    /// The folder changed under a write: stop this pass; the loop records the change and retries.
    func localChangeMidway(_ path: RelativePath) -> SyncError {
        _ = engine.inbox.withLock { $0.scopes.insert(.init(path: path, subtree: true)) }
        return SyncError(.assetFileModified, "\(path) changed while a remote change was being applied; trying again")
    }
}
