import DocSyncCore
import Foundation
import GRDB

/// Both sides changed an item (SPEC §4): the three-way merge and what it decides — conflict
/// copies, the version store for losing content — and two items claiming one path.
extension FolderEngine {
    /// Both sides changed the item: three-way merge against the acknowledged ancestor.
    func mergeAndApply(row original: IndexItem, server: DocSyncCore.Record) async throws(SyncError) {
        var row = original
        if row.needsRead { try readContent(&row) }
        let local = row.record(zone: configuration.zone, device: configuration.device)
        let outcome = ThreeWayMerge.merge(
            ancestor: row.acked, local: local, server: server, policy: configuration.conflictPolicy,
            localDevice: configuration.device, conflictCopyName: environment.newRecordName(), conflictTime: row.modified,
            pathIsTaken: { [self] path in isTaken(path) })
        let merged = outcome.merged
        var expected: IndexItem? = row
        var needWrite = contentKey(of: row) != contentKey(of: merged) || row.kind != merged.type
        if let copy = outcome.conflictCopy {
            // Keep-both: the local content moves aside as a new item; the server's takes its place.
            try keepAsConflictCopy(row, at: copy.path, recordName: copy.id.recordName)
            logger.notice("conflict: kept this device's version beside the other", metadata: ["path": "\(merged.path)", "copy": "\(copy.path)"])
            expected = nil
            needWrite = true
        } else if merged.path != row.path {
            if try move(&row, to: merged.path) { expected = row } else {
                throw localChangeMidway(merged.path)
            }
        }
        if outcome.losingContent == .server { try await keepServerVersion(server) }
        var written: FileStat?
        var chunks: [ChunkRef]?
        if needWrite {
            let reason: VersionStore.Reason = outcome.losingContent == .local ? .conflict : .overwritten
            switch try await write(merged, at: merged.path, expected: expected, keepReplacedAs: reason) {
            case .targetChanged: throw localChangeMidway(merged.path)
            case .written(let stat, let placed): (written, chunks) = (stat, placed)
            }
        } else {
            written = adjustMetadata(of: row, mode: merged.mode, modified: merged.modified)
        }
        row.take(merged)
        if let written { row.take(written) }
        row.acked = server
        row.needsRead = false
        if outcome.needsSend {
            markChanged(&row)
        } else {
            settle(&row, acked: server)
        }
        let final = row
        try writeIndex { db in
            try final.update(db)
            if let chunks { try db.setChunkLocations(of: final.recordName, chunks: chunks) }
            try refreshConflictFlags(db, around: [final.path] + (outcome.conflictCopy.map { [$0.path] } ?? []))
        }
    }

    /// A remote record and a different local item at the same path.
    func collide(local: IndexItem, server: DocSyncCore.Record) async throws(SyncError) {
        var local = local
        if local.kind == .folder && server.type == .folder {
            if local.acked != nil && local.recordName < server.id.recordName {
                return  // Two folder records for one path: the smaller name stays, the other device drops its own.
            }
            // Adopt the server's folder record for this directory; drop ours.
            var row = local
            row.recordName = server.id.recordName
            let keepMode = row.mode
            row.take(server)
            row.mode = keepMode
            settle(&row, acked: server)
            if keepMode != server.mode { markChanged(&row) }
            let adopted = row
            try writeIndex { db in
                if local.acked == nil {
                    try db.deleteItem(named: local.recordName)
                } else {
                    try db.execute(sql: "UPDATE item SET pending = 2, revision = revision + 1 WHERE recordName = ?", arguments: [local.recordName])
                }
                try adopted.insert(db)
            }
            return
        }
        if local.acked == nil && local.kind == server.type {
            if local.needsRead { try readContent(&local) }
            if local.kind == .document, contentKey(of: local) != contentKey(of: server), local.modified < server.modified, isJoining {
                // Joining (SPEC §4a): a local file older than the server's version is a stale
                // copy (a backup restored, a folder synced long ago): the server's version
                // takes its place and the local one goes to the version store, not beside it.
                try writeIndex { db in try db.deleteItem(named: local.recordName) }
                try await place(server, replacing: local, then: { _ in })
                logger.info("joining: an older local file was replaced by the server's version and kept in the version store",
                            metadata: ["path": "\(server.path)", "record": "\(server.id.recordName)"])
                return
            }
            if contentKey(of: local) == contentKey(of: server) {
                // The same content was created on both devices: one item, the server's, with
                // the server's modification time (the content is the same: the trees match).
                var row = local
                row.recordName = server.id.recordName
                let keepMode = row.mode
                row.take(server)
                row.mode = keepMode
                row.take(adjustMetadata(of: local, mode: keepMode, modified: server.modified))
                settle(&row, acked: server)
                if keepMode != server.mode { markChanged(&row) }
                let adopted = row
                try writeIndex { db in
                    // The adopted row first: chunk locations may only name an existing item.
                    try adopted.insert(db)
                    try db.execute(sql: "UPDATE chunkLocation SET recordName = ? WHERE recordName = ?", arguments: [adopted.recordName, local.recordName])
                    try db.deleteItem(named: local.recordName)
                }
                return
            }
        }
        try renameAside(local)
        try await place(server, replacing: nil, then: { _ in })
    }

    /// Whether `path` is in use, on disk (anything there, a dangling symlink too: the move
    /// would refuse it) or by an item of the index: a conflict copy is named so as to take neither.
    func isTaken(_ path: RelativePath) -> Bool {
        ((try? fileSystem.status(absolute(path))) ?? nil) != nil || ((try? index.readLatest { db in try db.item(at: path) }) ?? nil) != nil
    }

    /// Moves a local item out of the way, to a conflict-copy name beside it (synced as a change of path).
    func renameAside(_ original: IndexItem) throws(SyncError) {
        var row = original
        let copy = ConflictName.copyPath(for: row.path, device: configuration.device, time: row.modified, isTaken: { [self] path in isTaken(path) })
        guard try move(&row, to: copy) else { throw localChangeMidway(copy) }
        markChanged(&row)
        logger.notice("conflict: two items for one path; kept this device's beside the other", metadata: ["path": "\(original.path)", "copy": "\(copy)"])
        let final = row
        try writeIndex { db in
            try final.update(db)
            try refreshConflictFlags(db, around: [copy])
        }
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
        markChanged(&copy)
        let final = copy
        try writeIndex { db in
            try final.insert(db)
            try db.execute(sql: "UPDATE chunkLocation SET recordName = ? WHERE recordName = ?", arguments: [recordName, row.recordName])
        }
    }

    /// Under local-wins (or newest-wins with the local side newer) the server's content is
    /// kept in the version store.
    func keepServerVersion(_ server: DocSyncCore.Record) async throws(SyncError) {
        guard server.type == .document, let asset = server.asset else { return }
        let content = try await backend.loadAsset(asset)
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
            try index.write { db in try versions.keep(staging.path, item: item, reason: .conflict, device: server.lastModifiedBy, move: true, in: db) }
        } catch {
            try? fileSystem.removeFile(staging.path)
            throw SyncError(.serviceUnavailable, "cannot keep the other device's version of \(server.path): \(error)")
        }
    }
}
