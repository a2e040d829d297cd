import DocSyncCore
import Foundation
import GRDB

/// The executor's steps for conflicts (SPEC §4), as the planner decides them: a conflict
/// copy beside, the server's losing content in the version store, an item moved aside, a
/// local item adopting the server's record.
extension Executor {
    /// The local item `local` takes the server's record `server` for itself: a folder made
    /// on both devices, or the same content created on both. One item stays, the server's,
    /// with the local mode (sent when it differs) and, for content, the server's time.
    func adopt(_ local: IndexItem, as server: DocSyncCore.Record) throws(SyncError) {
        var row = local
        row.recordName = server.id.recordName
        let keepMode = row.mode
        row.take(server)
        row.mode = keepMode
        if local.kind != .folder { row.take(adjustMetadata(of: local, mode: keepMode, modified: server.modified)) }
        row.settle(acked: server)
        if keepMode != server.mode { row.markChanged() }
        let adopted = row
        try writeIndex { db in
            // The adopted row first: chunk locations may only name an existing item.
            try adopted.insert(db)
            try db.execute(sql: "UPDATE chunkLocation SET recordName = ? WHERE recordName = ?", arguments: [adopted.recordName, local.recordName])
            if local.acked == nil {
                try db.deleteItem(named: local.recordName)
            } else {
                // A folder record of ours the server knows: its deletion is sent.
                try db.execute(sql: "UPDATE item SET pending = 2, revision = revision + 1 WHERE recordName = ?", arguments: [local.recordName])
            }
        }
    }

    /// Moves a local item out of the way to `copy` (a conflict-copy name beside it), synced
    /// as a change of path. Returns its row as stored.
    func moveAside(_ original: IndexItem, to copy: RelativePath, loop: inout EngineLoop) throws(SyncError) -> IndexItem {
        var row = original
        guard try move(&row, to: copy, loop: &loop) else { throw localChangeMidway(copy) }
        row.markChanged()
        logger.notice("conflict: two items for one path; kept this device's beside the other", metadata: ["path": "\(original.path)", "copy": "\(copy)"])
        let final = row
        try writeIndex { db in
            try final.update(db)
            try db.refreshConflictFlags(around: [copy])
            if final.acked != nil { try engine.noteMovedByEngine(final, in: db) }
        }
        return final
    }

    /// Keep-both: the local file moves to `path` as a new item (same content, new record).
    func keepAsConflictCopy(_ row: IndexItem, at path: RelativePath, recordName: String) throws(SyncError) {
        _ = try Materializer.makeParents(of: path, root: configuration.root.path, in: fileSystem)
        // A file created at the copy's name since it was chosen is never replaced: the merge
        // is tried again, and picks a name that is free then.
        let code = Materializer.moveIfFree(absolute(row.path), absolute(path), in: fileSystem)
        guard code == 0 else {
            if code == EEXIST { throw localChangeMidway(path) }
            if code == ENOENT { throw localChangeMidway(row.path) }
            throw Materializer.failure("keep a conflict copy at", path.string, code: code)
        }
        var copy = row
        copy.recordName = recordName
        copy.path = path
        copy.acked = nil
        copy.chunksUploaded = false
        copy.markChanged()
        let final = copy
        try writeIndex { db in
            try final.insert(db)
            try db.execute(sql: "UPDATE chunkLocation SET recordName = ? WHERE recordName = ?", arguments: [recordName, row.recordName])
            try db.refreshConflictFlags(around: [path])
        }
    }

    /// Under local-wins (or newest-wins with the local side newer) the server's content is
    /// kept in the version store.
    func keepServerVersion(_ server: DocSyncCore.Record) async throws(SyncError) {
        guard server.type == .document, let asset = server.asset else { return }
        try keepInVersionStore(try await backend.loadAsset(asset), of: server, reason: .conflict)
    }

    /// Keeps `content`, the bytes of the server's document `server`, in the version store.
    func keepInVersionStore(_ content: Data, of server: DocSyncCore.Record, reason: VersionStore.Reason) throws(SyncError) {
        let staging = configuration.stateDirectory.appendingPathComponent(Materializer.temporaryPrefix + environment.newRecordName())
        do {
            try fileSystem.makeDirectories(configuration.stateDirectory.path)
            let file = try fileSystem.createFile(staging.path, mode: 0o600, size: content.count)
            defer { file.close() }
            try file.append(content)
            try file.finish(mode: server.mode, modified: server.modified, flush: false)
            file.close()
            var item = IndexItem(recordName: server.id.recordName, path: server.path, kind: .document,
                                 stat: FileStat(kind: .file, size: server.size, modified: server.modified, inode: 0, device: 0, mode: server.mode))
            item.size = server.size
            try index.write { db in try versions.keep(staging.path, item: item, reason: reason, device: server.lastModifiedBy, move: true, in: db) }
        } catch {
            try? fileSystem.removeFile(staging.path)
            throw SyncError(.serviceUnavailable, "cannot keep the other device's version of \(server.path): \(error)")
        }
    }
}
