import DocSyncCore
import Foundation
import GRDB

/// On-demand files (SPEC §6): remote documents kept as placeholders until asked for,
/// downloaded on request, and uploaded files turned back into placeholders (evicted).
extension FolderEngine {
    /// Shows the new remote document `server` as a placeholder. Returns false when it cannot
    /// have one (its name is too long for `.NAME.docsync`): the caller downloads it instead.
    func placePlaceholder(_ server: DocSyncCore.Record, loop: inout EngineLoop) throws(SyncError) -> Bool {
        guard server.type == .document, let placeholder = Placeholder.path(for: server.path) else { return false }
        let made = try Materializer.makeParents(of: server.path, root: configuration.root.path, in: fileSystem)
        loop.rememberCreated(made)
        try Placeholder.write(size: server.size, mode: server.mode, modified: server.modified, at: absolute(placeholder), in: fileSystem)
        let row = placeholderRow(server, shownBy: absolute(placeholder))
        try writeIndex { db in
            try db.deleteItem(named: row.recordName)
            try row.insert(db)
        }
        return true
    }

    /// A remote change to an item shown as a placeholder: the placeholder follows it (moved,
    /// its time updated); nothing is downloaded.
    func updatePlaceholder(_ row: IndexItem, to server: DocSyncCore.Record, loop: inout EngineLoop) async throws(SyncError) {
        guard server.type == .document, let newPlaceholder = Placeholder.path(for: server.path) else {
            try removePlaceholder(row)
            try await applyRemoteChange(.saved(server), loop: &loop)
            return
        }
        if server.path != row.path, let old = Placeholder.path(for: row.path) {
            let made = try Materializer.makeParents(of: server.path, root: configuration.root.path, in: fileSystem)
            loop.rememberCreated(made)
            try? fileSystem.removeFile(absolute(old))
        }
        try Placeholder.write(size: server.size, mode: server.mode, modified: server.modified, at: absolute(newPlaceholder), in: fileSystem)
        let updated = placeholderRow(server, shownBy: absolute(newPlaceholder))
        try writeIndex { db in try updated.update(db) }
    }

    /// The item shown by `row`'s placeholder is gone (deleted on another device, or its zone lost).
    func removePlaceholder(_ row: IndexItem) throws(SyncError) {
        if let placeholder = Placeholder.path(for: row.path) { try? fileSystem.removeFile(absolute(placeholder)) }
        try writeIndex { db in try db.deleteItem(named: row.recordName) }
    }

    /// Replaces the placeholder at `path` with the document's content; with `pin`, the
    /// document is kept local from now on (SPEC §14).
    func download(_ path: RelativePath, pin: Bool, loop: inout EngineLoop) async -> ActionOutcome {
        func outcome(_ done: Bool, _ message: String? = nil) -> ActionOutcome {
            ActionOutcome(folder: configuration.zone.name, path: path.string, done: done, message: message)
        }
        let found: IndexItem?
        do { found = try readIndex { db in try db.item(at: path) } } catch { return outcome(false, error.message) }
        guard let row = found else { return outcome(false, "no such item") }
        guard row.isPlaceholder else {
            guard row.kind == .document else { return outcome(true, "a \(row.kind.rawValue.lowercased()) has nothing to download") }
            if pin {
                do throws(SyncError) { try setPinned(true, recordName: row.recordName) } catch { return outcome(false, error.message) }
            }
            return outcome(true, "already downloaded")
        }
        guard let record = row.acked else { return outcome(false, "the server has not acknowledged this item") }
        let target = absolute(path)
        do throws(SyncError) {
            try writeIndex { db in
                try db.execute(sql: "UPDATE item SET isDownloading = 1, percentDownloaded = 0, downloadingError = NULL WHERE recordName = ?",
                               arguments: [row.recordName])
            }
            var made: [RelativePath] = []
            defer { loop.rememberCreated(made) }
            let prepared = try await executor.prepareDocument(record, at: path, flush: true, made: &made)
            let code = Materializer.renameWithoutReplacing(prepared.temporary, target, in: fileSystem)
            guard code == 0 else {
                try? fileSystem.removeFile(prepared.temporary)
                throw code == EEXIST
                    ? SyncError(.invalidArguments, "a file is already at \(path); move it away and download again")
                    : Materializer.failure("put the download in place at", path.string, code: code)
            }
            var updated = row
            updated.take(prepared.written)
            updated.settle(acked: record)
            let final = updated
            try writeIndex { db in
                try final.update(db)
                try db.setChunkLocations(of: final.recordName, chunks: prepared.chunks)
            }
            if let placeholder = Placeholder.path(for: path) { try? fileSystem.removeFile(absolute(placeholder)) }
            if pin { try setPinned(true, recordName: final.recordName) }
            logger.info("downloaded on request", metadata: ["path": "\(path)"])
            return outcome(true)
        } catch {
            _ = try? index.write { db in
                try db.execute(sql: "UPDATE item SET isDownloading = 0, downloadingError = ? WHERE recordName = ?",
                               arguments: [error.message, row.recordName])
            }
            return outcome(false, error.message)
        }
    }

    /// Turns the uploaded file at `path` back into a placeholder; refused, with the reason,
    /// for anything whose current content the server does not hold.
    func evict(_ path: RelativePath) -> ActionOutcome {
        func outcome(_ done: Bool, _ message: String? = nil) -> ActionOutcome {
            ActionOutcome(folder: configuration.zone.name, path: path.string, done: done, message: message)
        }
        let found: IndexItem?
        do { found = try readIndex { db in try db.item(at: path) } } catch { return outcome(false, error.message) }
        guard var row = found else { return outcome(false, "no such item") }
        if row.isPlaceholder { return outcome(true, "already a placeholder") }
        guard row.kind == .document else { return outcome(false, "only files can be evicted, not a \(row.kind.rawValue.lowercased())") }
        guard row.pending == .none, row.status.isUploaded, let acked = row.acked, acked.contentDigest == row.digest else {
            return outcome(false, "not uploaded yet: evicting it would lose its content")
        }
        guard let placeholder = Placeholder.path(for: path) else { return outcome(false, "its name is too long for a placeholder") }
        let target = absolute(path)
        guard let stat = try? fileSystem.status(target), row.matches(stat) else {
            return outcome(false, "it changed since it was uploaded; it will be uploaded first")
        }
        do throws(SyncError) {
            try Placeholder.write(size: row.size, mode: row.mode, modified: row.modified, at: absolute(placeholder), in: fileSystem)
            row = placeholderRow(acked, shownBy: absolute(placeholder), replacing: row)
            let final = row
            try writeIndex { db in
                try final.update(db)
                try db.execute(sql: "DELETE FROM chunkLocation WHERE recordName = ?", arguments: [final.recordName])
            }
            try? fileSystem.removeFile(target)
            try setPinned(false, recordName: final.recordName)
            logger.info("evicted; the content stays on the server", metadata: ["path": "\(path)"])
            return outcome(true)
        } catch {
            return outcome(false, error.message)
        }
    }

    /// The index row of an item shown as a placeholder for `record`: the record's metadata,
    /// acknowledged, the inode of its placeholder file (at `placeholder`; 0 when it cannot be
    /// read): moving that file moves the item), `notDownloaded`.
    func placeholderRow(_ record: DocSyncCore.Record, shownBy placeholder: String, replacing existing: IndexItem? = nil) -> IndexItem {
        var row = existing ?? IndexItem(recordName: record.id.recordName, path: record.path, kind: .document,
                                        stat: FileStat(kind: .file, size: record.size, modified: record.modified, inode: 0, device: 0, mode: record.mode))
        row.take(record)
        row.inode = ((try? fileSystem.status(placeholder)) ?? nil)?.inode ?? 0
        row.settle(acked: record)
        row.status.downloadingStatus = Placeholder.notDownloaded
        row.status.percentDownloaded = 0
        return row
    }
}
