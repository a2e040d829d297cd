import DocSyncCore
import Foundation
import GRDB

/// Applying one remote record or deletion to the folder and the index (SPEC §3, §4).
extension FolderEngine {
    func absolute(_ path: RelativePath) -> String { configuration.root.path + "/" + path.string }

    func applyRemote(_ server: DocSyncCore.Record) async throws(SyncError) {
        let name = server.id.recordName
        if scanner.withLock({ $0.isIgnored(server.path, isDirectory: server.type == .folder) }) { return }
        guard var row = try readIndex({ db in try db.item(named: name) }) else {
            try await applyNew(server)
            return
        }
        if row.acked?.changeTag == server.changeTag, row.acked != nil { return }
        if row.pending == .none {
            if let stat = try? FileStat.of(absolute(row.path)), row.matches(stat) {
                try await applyUpdate(server, to: row)
                return
            }
            // A local change the watcher has not reported yet: record it first.
            try reconcile([EngineInbox.Scope(path: row.path, subtree: false)])
            guard let again = try readIndex({ db in try db.item(named: name) }) else {
                try await applyNew(server)
                return
            }
            row = again
            if row.pending == .none {
                try await applyUpdate(server, to: row)
                return
            }
        }
        if row.pending == .delete {
            // Deleted here, changed there: the edit wins and the file comes back.
            logger.info("restoring an item deleted here but changed on another device", metadata: ["path": "\(server.path)"])
            try await place(server, replacing: nil, then: { row in row.recordName = name })
            return
        }
        try await mergeAndApply(row: row, server: server)
    }

    /// A record this device does not know yet.
    private func applyNew(_ server: DocSyncCore.Record) async throws(SyncError) {
        if let other = try readIndex({ db in try db.item(at: server.path) }) {
            try await collide(local: other, server: server)
            return
        }
        if let stat = try? FileStat.of(absolute(server.path)) {
            if stat.kind == .directory && server.type == .folder {
                // The folder is here already (made for a child, or by hand): adopt it.
                var row = IndexItem(recordName: server.id.recordName, path: server.path, kind: .folder, stat: stat)
                if stat.mode != server.mode { chmod(absolute(server.path), mode_t(server.mode)) }
                row.take(server)
                if let now = try? FileStat.of(absolute(server.path)) { row.take(now) }
                settle(&row, acked: server)
                let adopted = row
                try writeIndex { db in try adopted.insert(db) }
                createdDirectories.withLock { _ = $0.remove(server.path) }
                return
            }
            try reconcile([EngineInbox.Scope(path: server.path, subtree: false)])
            if let other = try readIndex({ db in try db.item(at: server.path) }) {
                try await collide(local: other, server: server)
                return
            }
        }
        try await place(server, replacing: nil, then: { _ in })
    }

    /// Writes `server` at its path over `replacing` (or into an empty place) and stores its row.
    private func place(_ server: DocSyncCore.Record, replacing expected: IndexItem?, then adjust: (inout IndexItem) -> Void) async throws(SyncError) {
        switch try await write(server, at: server.path, expected: expected, keepReplacedAs: expected == nil ? nil : .overwritten) {
        case .targetChanged:
            throw localChangeMidway(server.path)
        case .written(let stat):
            var row = IndexItem(recordName: server.id.recordName, path: server.path, kind: server.type, stat: stat)
            row.take(server)
            row.take(stat)
            settle(&row, acked: server)
            adjust(&row)
            let final = row
            try writeIndex { db in
                try db.deleteItem(named: final.recordName)
                try final.insert(db)
                try refreshConflictFlags(db, around: [final.path])
            }
        }
    }

    /// The local item is unchanged since the server acknowledged it: take the server's record.
    private func applyUpdate(_ server: DocSyncCore.Record, to original: IndexItem) async throws(SyncError) {
        var row = original
        if server.path != row.path {
            guard try move(&row, to: server.path) else {
                // Something else is where the item goes: keep it beside (a conflict of names).
                try reconcile([EngineInbox.Scope(path: server.path, subtree: false)])
                if let other = try readIndex({ db in try db.item(at: server.path) }) { try renameAside(other) }
                guard try move(&row, to: server.path) else { throw localChangeMidway(server.path) }
                return try await applyUpdate(server, to: row)
            }
        }
        var written: FileStat?
        if contentKey(of: row) != contentKey(of: server) || row.kind != server.type {
            switch try await write(server, at: server.path, expected: row, keepReplacedAs: .overwritten) {
            case .targetChanged: throw localChangeMidway(server.path)
            case .written(let stat): written = stat
            }
        } else {
            written = adjustMetadata(of: row, mode: server.mode, modified: server.modified)
        }
        row.take(server)
        if let written { row.take(written) }
        settle(&row, acked: server)
        let final = row
        try writeIndex { db in try final.update(db) }
    }

    /// Both sides changed the item: three-way merge against the acknowledged ancestor.
    func mergeAndApply(row original: IndexItem, server: DocSyncCore.Record) async throws(SyncError) {
        var row = original
        if row.needsRead { try readContent(&row) }
        let local = row.record(zone: configuration.zone, device: configuration.device)
        let outcome = ThreeWayMerge.merge(
            ancestor: row.acked, local: local, server: server, policy: configuration.conflictPolicy,
            localDevice: configuration.device, conflictCopyName: RecordID.newName(), conflictTime: row.modified,
            pathIsTaken: { [self] path in FileManager.default.fileExists(atPath: absolute(path)) || ((try? index.read { db in try db.item(at: path) }) ?? nil) != nil })
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
        if needWrite {
            let reason: VersionStore.Reason = outcome.losingContent == .local ? .conflict : .overwritten
            switch try await write(merged, at: merged.path, expected: expected, keepReplacedAs: reason) {
            case .targetChanged: throw localChangeMidway(merged.path)
            case .written(let stat): written = stat
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
            try refreshConflictFlags(db, around: [final.path] + (outcome.conflictCopy.map { [$0.path] } ?? []))
        }
    }

    /// A remote record and a different local item at the same path.
    private func collide(local: IndexItem, server: DocSyncCore.Record) async throws(SyncError) {
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
            if contentKey(of: local) == contentKey(of: server) {
                // The same content was created on both devices: one item, the server's.
                var row = local
                row.recordName = server.id.recordName
                let keepMode = row.mode
                row.take(server)
                row.mode = keepMode
                row.take(local.stat)
                settle(&row, acked: server)
                if keepMode != server.mode { markChanged(&row) }
                let adopted = row
                try writeIndex { db in
                    try db.execute(sql: "UPDATE chunkLocation SET recordName = ? WHERE recordName = ?", arguments: [adopted.recordName, local.recordName])
                    try db.deleteItem(named: local.recordName)
                    try adopted.insert(db)
                }
                return
            }
        }
        try renameAside(local)
        try await place(server, replacing: nil, then: { _ in })
    }

    /// Moves a local item out of the way, to a conflict-copy name beside it (synced as a change of path).
    private func renameAside(_ original: IndexItem) throws(SyncError) {
        var row = original
        let copy = ConflictName.copyPath(for: row.path, device: configuration.device, time: row.modified, isTaken: { [self] path in
            FileManager.default.fileExists(atPath: absolute(path)) || ((try? index.read { db in try db.item(at: path) }) ?? nil) != nil
        })
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
    private func keepAsConflictCopy(_ row: IndexItem, at path: RelativePath, recordName: String) throws(SyncError) {
        _ = try Materializer.makeParents(of: path, root: configuration.root.path)
        guard rename(absolute(row.path), absolute(path)) == 0 else { throw Materializer.failure("keep a conflict copy at", path.string) }
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

    /// Renames the item's file (and, for a folder, the paths of everything beneath it in the
    /// index) to `path`. Returns false when something else is already there.
    func move(_ row: inout IndexItem, to path: RelativePath) throws(SyncError) -> Bool {
        let from = absolute(row.path), to = absolute(path)
        if (try? FileStat.of(to)) ?? nil != nil { return false }
        let made = try Materializer.makeParents(of: path, root: configuration.root.path)
        if !made.isEmpty { createdDirectories.withLock { $0.formUnion(made) } }
        guard rename(from, to) == 0 else {
            if errno == ENOENT { return false }
            throw Materializer.failure("move \(row.path) to", path.string)
        }
        let old = row.path
        row.path = path
        if row.kind == .folder {
            try writeIndex { db in
                try db.execute(sql: """
                    UPDATE item SET path = ? || substr(path, ?) WHERE path >= ? AND path < ?
                    """, arguments: [path.string, old.string.utf8.count + 1, old.string + "/", old.string + "0"])
            }
        }
        return true
    }

    /// Sets a local item's mode and modification time to the remote values; returns the
    /// item's state as the index must remember it — computed, not re-read, so an edit made
    /// meanwhile still shows as a change.
    private func adjustMetadata(of row: IndexItem, mode: UInt32, modified: Timestamp) -> FileStat {
        var stat = row.stat
        if row.mode != mode, chmod(absolute(row.path), mode_t(mode)) == 0 { stat.mode = mode }
        if row.kind == .document, row.modified != modified {
            Materializer.setModified(absolute(row.path), modified)
            stat.modified = modified
        }
        return stat
    }

    /// A remote deletion.
    func applyRemoteDeletion(_ recordName: String) throws(SyncError) {
        guard var row = try readIndex({ db in try db.item(named: recordName) }) else { return }
        switch row.pending {
        case .delete:
            try writeIndex { db in try db.deleteItem(named: recordName) }
            return
        case .save:
            // Changed here, deleted there: the edit wins and is sent as a new save.
            row.acked = nil
            let final = row
            try writeIndex { db in try final.update(db) }
            return
        case .none:
            break
        }
        let path = absolute(row.path)
        guard let stat = try? FileStat.of(path) else {
            try writeIndex { db in try db.deleteItem(named: recordName) }
            return
        }
        if !row.matches(stat) || row.kind == .folder {
            try reconcile([EngineInbox.Scope(path: row.path, subtree: row.kind == .folder)])
            guard let again = try readIndex({ db in try db.item(named: recordName) }) else { return }
            row = again
            if row.pending == .save {
                row.acked = nil
                let final = row
                try writeIndex { db in try final.update(db) }
                return
            }
        }
        if row.kind == .folder {
            let children = try readIndex { db in try db.items(under: row.path).filter { $0.recordName != recordName && $0.pending != .delete } }
            if !children.isEmpty {
                // New local items inside: the folder stays and is sent again.
                row.acked = nil
                markChanged(&row)
                let final = row
                try writeIndex { db in try final.update(db) }
                return
            }
            if rmdir(path) != 0 && errno != ENOENT {
                // Only ignored files are left inside: keep them in the version store.
                let kept = row
                try writeIndex { db in try versions.keep(path, item: kept, reason: .deleted, device: kept.acked?.lastModifiedBy ?? "", move: true, in: db) }
            }
            try writeIndex { db in try db.deleteItem(named: recordName) }
            return
        }
        let kept = row
        try writeIndex { db in
            try versions.keep(path, item: kept, reason: .deleted, device: kept.acked?.lastModifiedBy ?? "", move: true, in: db)
            try db.deleteItem(named: recordName)
            try refreshConflictFlags(db, around: [kept.path])
        }
        logger.info("deleted on another device; kept in the version store", metadata: ["path": "\(kept.path)"])
    }

    /// Under local-wins (or newest-wins with the local side newer) the server's content is
    /// kept in the version store.
    private func keepServerVersion(_ server: DocSyncCore.Record) async throws(SyncError) {
        guard server.type == .document, let asset = server.asset else { return }
        let content = try await backend.loadAsset(asset)
        let staging = configuration.stateDirectory.appendingPathComponent(Materializer.temporaryPrefix + RecordID.newName())
        do {
            try content.write(to: staging)
            var item = IndexItem(recordName: server.id.recordName, path: server.path, kind: .document,
                                 stat: FileStat(kind: .file, size: server.size, modified: server.modified, inode: 0, device: 0, mode: server.mode))
            item.size = server.size
            try index.write { db in try versions.keep(staging.path, item: item, reason: .conflict, device: server.lastModifiedBy, move: true, in: db) }
        } catch {
            unlink(staging.path)
            throw SyncError(.serviceUnavailable, "cannot keep the other device's version of \(server.path): \(error)")
        }
    }

    /// Reads a changed file's content into the row (digest, asset, chunk locations) and
    /// stores both in the index.
    func readContent(_ row: inout IndexItem) throws(SyncError) {
        let chunks = try readContentUnsaved(&row)
        let final = row
        try writeIndex { db in
            try final.update(db)
            if let chunks { try db.setChunkLocations(of: final.recordName, chunks: chunks) }
        }
    }

    /// Reads a changed item's content into the row without touching the index; returns a
    /// document's chunk list (for `setChunkLocations`), `nil` for other kinds.
    func readContentUnsaved(_ row: inout IndexItem) throws(SyncError) -> [ChunkRef]? {
        switch row.kind {
        case .folder:
            row.needsRead = false
            return nil
        case .symlink:
            let target = try ContentReader.linkTarget(absolute(row.path))
            row.symlinkTarget = target
            row.size = Int64(target.utf8.count)
            row.needsRead = false
            return nil
        case .document:
            let content = try ContentReader.read(absolute(row.path))
            row.take(content.stat)
            row.digest = content.manifest.contentDigest
            row.asset = content.reference
            row.needsRead = false
            return content.manifest.chunks
        }
    }

    /// What decides whether two versions have the same content.
    func contentKey(of row: IndexItem) -> String {
        switch row.kind {
        case .document: return "d:" + (row.digest?.hex ?? "?")
        case .symlink: return "l:" + (row.symlinkTarget ?? "?")
        case .folder: return "f"
        }
    }

    func contentKey(of record: DocSyncCore.Record) -> String {
        switch record.type {
        case .document: return "d:" + (record.contentDigest?.hex ?? "?")
        case .symlink: return "l:" + (record.symlinkTarget ?? "?")
        case .folder: return "f"
        }
    }

    /// The row now matches `record`, which the server has.
    func settle(_ row: inout IndexItem, acked record: DocSyncCore.Record) {
        row.acked = record
        row.pending = .none
        row.needsRead = false
        row.chunksUploaded = record.type == .document
        row.status.isUploaded = true
        row.status.isUploading = false
        row.status.percentUploaded = 100
        row.status.isDownloading = false
        row.status.percentDownloaded = 100
        row.status.downloadingStatus = "current"
        row.status.downloadingError = nil
        row.status.uploadingError = nil
    }

    /// The folder changed under a write: stop this pass; the loop records the change and retries.
    func localChangeMidway(_ path: RelativePath) -> SyncError {
        _ = inbox.withLock { $0.scopes.insert(.init(path: path, subtree: true)) }
        return SyncError(.assetFileModified, "\(path) changed while a remote change was being applied; trying again")
    }
}

extension IndexItem {
    /// The row's on-disk facts as a stat.
    var stat: FileStat { FileStat(kind: FileStat.Kind(kind), size: size, modified: modified, inode: inode, device: 0, mode: mode) }
}
