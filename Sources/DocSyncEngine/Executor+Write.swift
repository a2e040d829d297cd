import DocSyncCore
import DocSyncStorage
import Foundation

/// Writing remote content into the folder: a temporary file in the same directory, chunks
/// taken from local files where this machine has them (verified) and downloaded otherwise
/// (verified by the backend), fsync, then — only if the target is still what the index
/// last saw — the replaced content kept in the version store and the file renamed over it.
extension Executor {
    /// Why a write did not replace its target.
    enum WriteOutcome {
        /// The target now holds the content; for a document, `chunks` says where each of its
        /// chunks lies — the caller stores them with the item's row (`setChunkLocations`), in
        /// the same transaction, so later downloads can take them from this file.
        case written(FileStat, chunks: [ChunkRef]?)
        /// The target is not what the index expected: a local change the engine has not seen yet.
        case targetChanged
    }

    /// Puts `record`'s content at `path`. `expected` is the index's row for what is there
    /// now (`nil`: nothing may be there). The replaced file is kept as `reason` when given.
    func write(_ record: DocSyncCore.Record, at path: RelativePath, expected: IndexItem?, keepReplacedAs reason: VersionStore.Reason?,
               loop: inout EngineLoop) async throws(SyncError) -> WriteOutcome {
        let root = configuration.root.path
        let target = root + "/" + path.string
        let made = try Materializer.makeParents(of: path, root: root, in: fileSystem)
        loop.rememberCreated(made)
        switch record.type {
        case .folder:
            do { try fileSystem.makeDirectory(target, mode: record.mode) } catch {
                guard error.code == EEXIST else { throw Materializer.failure("create the folder", path.string, error) }
                guard let stat = try? fileSystem.status(target), stat.kind == .directory else { return .targetChanged }
            }
            try? fileSystem.setMode(target, record.mode)
            try? fileSystem.flushDirectory(String(Materializer.directory(of: target)))
            loop.createdDirectories.remove(path)
            guard let stat = try? fileSystem.status(target) else { return .targetChanged }
            return .written(stat, chunks: nil)
        case .symlink:
            let directory = Materializer.directory(of: target)
            var temporary = directory + "/" + Materializer.temporaryName()
            while true {
                do throws(FileSystemError) {
                    try fileSystem.makeSymlink(record.symlinkTarget ?? "", at: temporary)
                    break
                } catch {
                    guard error.code == EEXIST else { throw Materializer.failure("create the link", path.string, error) }
                    temporary = directory + "/" + Materializer.temporaryName()
                }
            }
            try? fileSystem.setModified(temporary, record.modified)
            guard let written = try? fileSystem.status(temporary) else {
                try? fileSystem.removeFile(temporary)
                throw Materializer.failure("examine the link", path.string, code: EIO)
            }
            return try replace(target, with: temporary, written: written, path: path, expected: expected, reason: reason)
        case .document:
            let prepared: PreparedFile
            if let ready = takePrepared(record, at: target, loop: &loop) {
                prepared = ready
            } else {
                var made: [RelativePath] = []
                defer { loop.rememberCreated(made) }
                prepared = try await prepareDocument(record, at: path, flush: true, made: &made)
            }
            do throws(SyncError) {
                let outcome = try replace(target, with: prepared.temporary, written: prepared.written, path: path, expected: expected, reason: reason)
                if case .written(let stat, _) = outcome { return .written(stat, chunks: prepared.chunks) }
                return outcome
            } catch {
                try? fileSystem.removeFile(prepared.temporary)
                throw error
            }
        case .value:
            throw SyncError(.invalidArguments, "\(record.id) is a key-value store's Value, which has no place in a folder")
        case .sealed:
            throw SyncError(.invalidArguments, "\(record.id) is still sealed; an encrypted folder's records are opened before they are applied")
        }
    }

    /// A document's content written to a temporary file beside its target, verified, with
    /// its mode and time set — not yet renamed into place.
    struct PreparedFile: Sendable {
        var temporary: String
        /// The temporary file's state (kept by the rename).
        var written: FileStat
        var chunks: [ChunkRef]
        var contentDigest: SHA256Digest
    }

    /// Writes `record`'s content into a new temporary file beside `path`, from local copies
    /// of its chunks where this machine has them and downloads otherwise, each chunk verified
    /// (see `writeTemporary`). With `flush`, the file is fsynced; without, the caller flushes the file
    /// system before renaming it into place. Nothing is left behind on failure but the
    /// directories made for it, which `made` gains (the loop remembers them: `EngineLoop.createdDirectories`).
    func prepareDocument(_ record: DocSyncCore.Record, at path: RelativePath, flush: Bool,
                         made: inout [RelativePath]) async throws(SyncError) -> PreparedFile {
        guard let asset = record.asset else { throw SyncError(.invalidArguments, "\(path): a document without content") }
        let manifest = try await backend.loadManifest(asset, knownNodes: heldManifestNodes(of: record.id.recordName))
        var found: [SHA256Digest: Data] = [:]
        if manifest.chunks.count <= 256 { found = try await chunkBytes(manifest.chunks) }
        return try await writeTemporary(record, at: path, manifest: manifest, chunks: found, flush: flush, made: &made)
    }

    /// The manifest nodes of the version of `recordName` this device holds, rebuilt from its
    /// recorded chunks: a new version of a large file then downloads only the nodes the
    /// edit changed. Empty when the item is unknown here or small enough to need no tree.
    func heldManifestNodes(of recordName: String) -> [SHA256Digest: Data] {
        let held = try? index.readLatest { db -> AssetManifest? in
            guard let digest = try db.item(named: recordName)?.digest else { return nil }
            let chunks = try db.recordedChunks(of: recordName)
            return chunks.count > ManifestTree.maximumRootEntries ? AssetManifest(chunks: chunks, contentDigest: digest) : nil
        }
        return held.flatMap { $0 }.map(ManifestTree.nodesByDigest(of:)) ?? [:]
    }

    /// Writes `record`'s content (`manifest`) into a new temporary file beside `path`, taking
    /// chunk bytes from `chunks` and fetching the rest (local copies first) a group at a time.
    /// The directories it makes for it are added to `made`.
    func writeTemporary(_ record: DocSyncCore.Record, at path: RelativePath, manifest: AssetManifest, chunks given: [SHA256Digest: Data], flush: Bool,
                        made: inout [RelativePath]) async throws(SyncError) -> PreparedFile {
        let target = configuration.root.path + "/" + path.string
        // Unflushed, the directories made for it become durable with the file, by the caller's flush.
        made += try Materializer.makeParents(of: path, root: configuration.root.path, in: fileSystem, flush: flush)
        // Chunks are gathered into large writes. A large file is written past the page cache
        // (see `PosixFileSystem.createFile`); a small one through it, which costs less than a
        // direct write's wait for the disk.
        let size = manifest.chunks.reduce(0) { $0 + $1.length }
        let (file, temporary) = try Materializer.createTemporary(beside: target, size: size, in: fileSystem)
        defer { file.close() }
        do throws(SyncError) {
            let total = manifest.chunks.count
            // The content is not hashed again as a whole. Every chunk's bytes were verified
            // where they came from (a backend's download against the chunk's digest, or a local
            // copy read and hashed; in an encrypted folder, against its MAC), and the list of
            // chunks is the record's own (its manifest nodes checked against their digests, or
            // authenticated with the sealed record): the file written is exactly the content
            // the record describes. The record's content digest, taken from the same record,
            // stays what it is for — telling whether two versions hold the same content
            // (sameness, conflicts, a scan that must read a file again) — and a whole-file hash
            // here could only find the record's two fields disagreeing, not a damaged byte.
            var position = 0
            if total > 256 { setDownloadProgress(record.id.recordName, 0) }
            while position < total {
                // A group of chunks at a time: one lookup of local copies, one download of the rest.
                let group = Array(manifest.chunks[position..<min(position + 256, total)])
                let found = group.allSatisfy({ given[$0.digest] != nil }) ? given : try await chunkBytes(group)
                for chunk in group {
                    guard let bytes = found[chunk.digest] else { throw SyncError.chunkNotFound(chunk.digest) }
                    do { try file.append(bytes) } catch { throw Materializer.failure("write", path.string, error) }
                }
                position += group.count
                if position < total { setDownloadProgress(record.id.recordName, Double(position) / Double(total)) }
            }
            // What was written, as the index must remember it: taken from the open file, so a
            // change made right after the rename is still seen as a change.
            let written: FileStat
            do {
                try file.finish(mode: record.mode, modified: record.modified, flush: flush)
                written = try file.status()
            } catch {
                throw Materializer.failure("write", path.string, error)
            }
            file.close()
            return PreparedFile(temporary: temporary, written: written, chunks: manifest.chunks, contentDigest: manifest.contentDigest)
        } catch {
            try? fileSystem.removeFile(temporary)
            throw error
        }
    }

    /// The prepared file for `record`, if one was written for this content beside `target`.
    func takePrepared(_ record: DocSyncCore.Record, at target: String, loop: inout EngineLoop) -> PreparedFile? {
        guard let file = loop.preparedFiles.removeValue(forKey: record.id.recordName) else { return nil }
        let sameDirectory = Materializer.directory(of: file.temporary) == Materializer.directory(of: target)
        guard sameDirectory, file.contentDigest == record.contentDigest else {
            try? fileSystem.removeFile(file.temporary)
            return nil
        }
        return file
    }

    /// Removes prepared files nobody used (their records were applied some other way).
    func discardPreparedFiles(loop: inout EngineLoop) {
        let left = loop.preparedFiles.values
        loop.preparedFiles.removeAll()
        for file in left { try? fileSystem.removeFile(file.temporary) }
    }

    /// Renames `temporary` (whose state is `written`) over `target` if the target is still
    /// what `expected` says. The outcome carries `written`: the rename keeps the inode, size
    /// and times, and a stat taken after it could already include someone else's change.
    func replace(_ target: String, with temporary: String, written: FileStat, path: RelativePath, expected: IndexItem?, reason: VersionStore.Reason?) throws(SyncError) -> WriteOutcome {
        let current: FileStat?
        do { current = try fileSystem.status(target) } catch {
            try? fileSystem.removeFile(temporary)
            throw Materializer.failure("examine", path.string, error)
        }
        let unchanged: Bool
        switch (current, expected) {
        case (nil, _): unchanged = expected == nil || expected?.pending == .delete
        case (let stat?, let row?): unchanged = row.pending != .delete && row.path == path && row.matches(stat) && stat.kind != .directory
        case (_?, nil): unchanged = false
        }
        guard unchanged else {
            try? fileSystem.removeFile(temporary)
            logger.debug("the place of a remote change changed before the write", metadata: [
                "path": "\(path)", "found": "\(current.map { "\($0.kind) inode \($0.inode) size \($0.size)" } ?? "nothing")",
                "expected": "\(expected.map { "\($0.recordName) pending \($0.pending) at \($0.path) inode \($0.inode) size \($0.size)" } ?? "nothing")"])
            return .targetChanged
        }
        if let current, let expected, let reason, current.kind == .file {
            do {
                try index.write { db in try versions.keep(target, item: expected, reason: reason, device: expected.acked?.lastModifiedBy ?? configuration.device, move: false, in: db) }
            } catch {
                try? fileSystem.removeFile(temporary)
                throw SyncError(.serviceUnavailable, "cannot keep the previous version of \(path) (\(error)); not replacing it")
            }
        }
        do { try fileSystem.rename(temporary, to: target) } catch {
            try? fileSystem.removeFile(temporary)
            throw Materializer.failure("replace", path.string, error)
        }
        // The new name durable before the index says the file is here: a power cut must not
        // leave the index naming a file the disk lost (the scan would send its deletion).
        try? fileSystem.flushDirectory(String(Materializer.directory(of: target)))
        return .written(written, chunks: nil)
    }

    /// The bytes of `chunks`: from local files where this machine holds them (verified
    /// against their id: a SHA-256, or in an encrypted folder a MAC of one of its epochs),
    /// the rest downloaded in one call, asked for in the order of `chunks` (a file's chunks,
    /// and a page's files, usually lie in that order in the backend's packs, so a server
    /// reads each request's chunks in a few long runs).
    func chunkBytes(_ chunks: [ChunkRef]) async throws(SyncError) -> [SHA256Digest: Data] {
        var lengths: [SHA256Digest: Int] = [:]
        var digests: [SHA256Digest] = []
        for chunk in chunks where lengths.updateValue(chunk.length, forKey: chunk.digest) == nil { digests.append(chunk.digest) }
        let places = (try? index.readLatest { db in try db.chunkLocations(of: digests) }) ?? [:]
        var found: [SHA256Digest: Data] = [:]
        for (digest, candidates) in places {
            for place in candidates where place.length == lengths[digest] {
                if let data = ContentReader.readRange(configuration.root.path + "/" + place.path.string, offset: place.offset, length: place.length,
                                                      in: fileSystem),
                   engine.isContent(data, ofChunk: digest) {
                    found[digest] = data
                    break
                }
            }
        }
        let missing = digests.filter { found[$0] == nil }
        if !missing.isEmpty {
            for (digest, data) in try await backend.downloadChunks(missing) {
                guard data.count == lengths[digest] else {
                    throw SyncError(.chunkCorrupt, "chunk \(digest.shortHex) has \(data.count) bytes, the manifest says \(lengths[digest] ?? 0)", digest: digest)
                }
                found[digest] = data
            }
        }
        return found
    }

    private func setDownloadProgress(_ recordName: String, _ fraction: Double) {
        _ = try? index.write { db in
            try db.execute(sql: "UPDATE item SET isDownloading = 1, percentDownloaded = ? WHERE recordName = ?", arguments: [fraction * 100, recordName])
        }
    }
}
