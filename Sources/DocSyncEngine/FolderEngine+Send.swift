import DocSyncCore
import DocSyncStorage
import Foundation
import GRDB

/// Sending pending local changes: read content, upload missing chunks, then save and delete
/// records in batches of at most 400, recording each item's answer (SPEC §3, §5).
extension FolderEngine {
    /// Sends everything pending. Returns false when some item had to wait (its file was
    /// changing while being read): the loop tries again shortly.
    func sendPending() async throws(SyncError) -> Bool {
        guard configuration.direction != .receiveOnly else { return true }
        var complete = true
        // Pages in (path, record name) order: a folder is always sent before what is inside it,
        // so another device never sees a child's new path before its folder's.
        var cursor = (path: "", recordName: "")
        var batchLimit = RecordBatch.maximumItems
        while true {
            let rows = try readIndex { db in
                try IndexItem.fetchAll(db, sql: """
                    SELECT * FROM item WHERE pending != 0 AND uploadingError IS NULL AND (path > ? OR (path = ? AND recordName > ?))
                    ORDER BY path, recordName LIMIT 1000
                    """, arguments: [cursor.path, cursor.path, cursor.recordName])
            }
            guard let last = rows.last else { break }
            let pageStarted = ContinuousClock.now
            cursor = (last.path.string, last.recordName)
            var saves: [IndexItem] = []
            var deletions: [IndexItem] = []
            // First read every changed item (one transaction per page keeps what was read),
            // then decide what to send.
            var page = rows
            var read: [(row: IndexItem, content: ReadContent?)] = []
            var unreadable = Set<String>()
            // Small files' bytes are kept from this read for the upload (up to 64 MiB a page),
            // so they are neither read nor hashed a second time.
            var keptBytes: Int64 = 0
            // Items whose content on disk was, until this read, the acknowledged content: its
            // chunks are on the server, so a small edit need not ask about them again.
            var wasAcknowledged = Set<String>()
            for index in page.indices where page[index].pending == .save && page[index].needsRead {
                if page[index].kind == .document, page[index].size > configuration.maxFileSize { continue }
                if let before = page[index].digest, page[index].acked?.contentDigest == before {
                    wasAcknowledged.insert(page[index].recordName)
                }
                do throws(SyncError) {
                    let keepLimit: Int64 = keptBytes < 64 << 20 ? 1 << 20 : 0
                    let content = try readContentUnsaved(&page[index], keepingUpTo: keepLimit)
                    keptBytes += Int64(content?.bytes?.count ?? 0)
                    read.append((page[index], content))
                } catch where error.code == .assetFileModified {
                    complete = false
                    unreadable.insert(page[index].recordName)
                } catch {
                    try fail(&page[index], error.message)
                    unreadable.insert(page[index].recordName)
                }
            }
            var knownStored = Set<SHA256Digest>()
            if !read.isEmpty {
                try writeIndex { db in
                    let previous = try db.cachedStatement(sql: "SELECT digest FROM chunkLocation WHERE recordName = ?")
                    for entry in read {
                        if wasAcknowledged.contains(entry.row.recordName) {
                            for data in try Data.fetchAll(previous, arguments: [entry.row.recordName]) {
                                if let digest = SHA256Digest(bytes: data) { knownStored.insert(digest) }
                            }
                        }
                        try entry.row.update(db)
                        if let content = entry.content { try db.setChunkLocations(of: entry.row.recordName, chunks: content.chunks) }
                    }
                }
            }
            for var row in page where !unreadable.contains(row.recordName) {
                if row.pending == .delete {
                    if row.acked == nil { try writeIndex { db in try db.deleteItem(named: row.recordName) } } else { deletions.append(row) }
                    continue
                }
                if row.kind == .document, row.size > configuration.maxFileSize {
                    try refuseTooLarge(&row)
                    continue
                }
                if let acked = row.acked, sameFields(row.record(zone: configuration.zone, device: configuration.device), acked) {
                    settle(&row, acked: acked)
                    let final = row
                    try writeIndex { db in try final.update(db) }
                    continue
                }
                saves.append(row)
            }
            let readDone = ContinuousClock.now
            try markUploading(saves.filter { $0.kind == .document && !$0.chunksUploaded }.map(\.recordName))
            var justRead: [String: ReadContent] = [:]
            for entry in read { if let content = entry.content { justRead[entry.row.recordName] = content } }
            let unsent = try await uploadChunks(for: saves.filter { $0.kind == .document && !$0.chunksUploaded }, justRead: justRead,
                                                knownStored: knownStored)
            let uploadDone = ContinuousClock.now
            if !unsent.isEmpty { complete = false }
            saves.removeAll { unsent.contains($0.recordName) }
            var items = saves.map { (row: $0, delete: false) } + deletions.map { (row: $0, delete: true) }
            while !items.isEmpty {
                let slice = Array(items.prefix(batchLimit))
                let batch = RecordBatch(
                    zone: configuration.zone,
                    saves: slice.filter { !$0.delete }.map { $0.row.record(zone: configuration.zone, device: configuration.device) },
                    deletions: slice.filter(\.delete).map { RecordDeletion(id: RecordID(zone: configuration.zone, recordName: $0.row.recordName), baseTag: $0.row.acked?.changeTag) })
                let result: ModifyResult
                do {
                    result = try await backend.modifyRecords(batch)
                } catch where error.code == .limitExceeded && batchLimit > 1 {
                    batchLimit = max(1, batchLimit / 2)
                    logger.notice("batch too large for the backend; splitting", metadata: ["items": "\(batchLimit)"])
                    continue
                }
                try await record(result, sent: slice.map(\.row))
                items.removeFirst(slice.count)
            }
            logger.trace("sent a page", metadata: ["items": "\(rows.count)", "read": "\(readDone - pageStarted)",
                                                   "chunks": "\(uploadDone - readDone)", "records": "\(ContinuousClock.now - uploadDone)"])
        }
        return complete
    }

    /// Documents whose chunks are about to travel show `isUploading` from 0 %.
    private func markUploading(_ names: [String]) throws(SyncError) {
        guard !names.isEmpty else { return }
        try writeIndex { db in
            let statement = try db.cachedStatement(sql: "UPDATE item SET isUploading = 1, percentUploaded = 0 WHERE recordName = ?")
            for name in names { try statement.execute(arguments: [name]) }
        }
    }

    /// Sets `percentUploaded` of each record in `sent` from the bytes of its missing chunks sent so far.
    private func noteUploadProgress(_ sent: [String: Int], of totals: [String: Int]) {
        _ = try? index.write { db in
            let statement = try db.cachedStatement(sql: "UPDATE item SET percentUploaded = ? WHERE recordName = ?")
            for (name, bytes) in sent {
                guard let total = totals[name], total > 0 else { continue }
                try statement.execute(arguments: [min(100, Double(bytes) * 100 / Double(total)), name])
            }
        }
    }

    private func refuseTooLarge(_ row: inout IndexItem) throws(SyncError) {
        let message = "file is \(ByteCountFormatter.string(fromByteCount: row.size, countStyle: .file)), over max_file_size "
            + "(\(ByteCountFormatter.string(fromByteCount: configuration.maxFileSize, countStyle: .file))): kept on this device, not synced"
        try fail(&row, message)
    }

    private func fail(_ row: inout IndexItem, _ message: String) throws(SyncError) {
        row.status.uploadingError = message
        row.status.isUploading = false
        let final = row
        try writeIndex { db in try final.update(db) }
        logger.warning("cannot upload item", metadata: ["path": "\(row.path)", "record": "\(row.recordName)", "problem": "\(message)"])
    }

    /// Same fields as the server has (ignoring the tag and who wrote it): nothing to send.
    func sameFields(_ a: DocSyncCore.Record, _ b: DocSyncCore.Record) -> Bool {
        a.type == b.type && a.path == b.path && a.size == b.size && a.modified == b.modified && a.mode == b.mode
            && a.contentDigest == b.contentDigest && a.symlinkTarget == b.symlinkTarget
    }

    /// Records the backend's answer to one modify request, item by item.
    private func record(_ result: ModifyResult, sent: [IndexItem]) async throws(SyncError) {
        let sentRevision = Dictionary(sent.map { ($0.recordName, $0.revision) }, uniquingKeysWith: { a, _ in a })
        try writeIndex { db in
            let revision = try db.cachedStatement(sql: "SELECT revision FROM item WHERE recordName = ?")
            let rebase = try db.cachedStatement(sql: "UPDATE item SET acked = ? WHERE recordName = ?")
            for (id, saved) in result.saved {
                guard let current = try Int64.fetchOne(revision, arguments: [id.recordName]) else { continue }
                if current == sentRevision[id.recordName] {
                    try db.settleItem(named: id.recordName, acked: saved)
                } else {
                    // Changed again meanwhile: still pending, now based on this save.
                    try rebase.execute(arguments: [CompactCoding.encode(saved), id.recordName])
                }
            }
            for id in result.deleted {
                let path = try db.item(named: id.recordName)?.path
                try db.deleteItem(named: id.recordName)
                if let path { try refreshConflictFlags(db, around: [path]) }
            }
        }
        var wholeFailure: SyncError?
        for (id, error) in result.failed.sorted(by: { $0.key < $1.key }) {
            guard var row = try readIndex({ db in try db.item(named: id.recordName) }) else { continue }
            switch error.code {
            case .serverRecordChanged:
                var server = error.serverRecord
                if server == nil { server = try await backend.fetchRecords([id])[id] }
                guard let server else { continue }
                if row.pending == .delete {
                    try await applyRemote(server)  // deleted here, changed there: the edit wins
                } else {
                    try await mergeAndApply(row: row, server: server)
                }
            case .unknownItem:
                row.acked = nil  // deleted on the server meanwhile; the edit wins and is saved anew
                let final = row
                try writeIndex { db in try final.update(db) }
            case .chunkNotFound:
                row.chunksUploaded = false
                let final = row
                try writeIndex { db in try final.update(db) }
            case .batchRequestFailed:
                continue
            case .invalidArguments, .limitExceeded:
                try fail(&row, error.message)
            default:
                wholeFailure = wholeFailure ?? error
            }
        }
        if let wholeFailure { throw wholeFailure }
    }

    /// Uploads the chunks and manifest nodes of `rows` that the backend lacks. Chunks of
    /// content in `justRead` are sent from those bytes; others are read back from their file
    /// and checked to still hash to their digest. `knownStored` are digests the backend is
    /// known to hold (chunks of acknowledged content): they are neither asked about nor sent.
    /// Returns the record names whose file changed meanwhile (they are read again later).
    private func uploadChunks(for rows: [IndexItem], justRead: [String: ReadContent],
                              knownStored: Set<SHA256Digest>) async throws(SyncError) -> Set<String> {
        guard !rows.isEmpty else { return [] }
        struct Piece: Sendable { var recordName: String; var path: String; var offset: Int64; var length: Int; var bytes: Data? }
        var pieces: [SHA256Digest: Piece] = [:]
        var nodes: [SHA256Digest: Data] = [:]
        var changed = Set<String>()
        let stored = try readIndex { db in
            var located: [String: [ChunkRef]] = [:]
            let statement = try db.cachedStatement(sql: "SELECT digest, length FROM chunkLocation WHERE recordName = ? ORDER BY offset")
            for row in rows where justRead[row.recordName] == nil {
                located[row.recordName] = try Row.fetchAll(statement, arguments: [row.recordName]).compactMap { r in
                    SHA256Digest(bytes: r[0] as Data).map { ChunkRef(digest: $0, length: r[1]) }
                }
            }
            return located
        }
        for row in rows {
            let content = justRead[row.recordName]
            let refs = content?.chunks ?? stored[row.recordName] ?? []
            guard let digest = row.digest, refs.reduce(Int64(0), { $0 + Int64($1.length) }) == row.size else {
                changed.insert(row.recordName)
                continue
            }
            let (reference, treeNodes) = ManifestTree.build(AssetManifest(chunks: refs, contentDigest: digest))
            guard reference == row.asset else {
                changed.insert(row.recordName)
                continue
            }
            for node in treeNodes { nodes[node.ref.digest] = node.bytes }
            var offset: Int64 = 0
            for ref in refs {
                if pieces[ref.digest] == nil {
                    let bytes = content?.bytes.map { $0.subdata(in: Int(offset)..<Int(offset) + ref.length) }
                    pieces[ref.digest] = Piece(recordName: row.recordName, path: absolute(row.path), offset: offset, length: ref.length, bytes: bytes)
                }
                offset += Int64(ref.length)
            }
        }
        var missing = Set<SHA256Digest>()
        let wanted = pieces.keys.filter { !knownStored.contains($0) } + nodes.keys.filter { !knownStored.contains($0) }
        for start in stride(from: 0, to: wanted.count, by: 4000) {
            missing.formUnion(try await backend.missingChunks(Array(wanted[start..<min(start + 4000, wanted.count)])))
        }
        for (digest, bytes) in nodes where missing.contains(digest) {
            try await backend.uploadChunk(digest, bytes: bytes)
        }
        // Chunks travel in batches (one flush or one request each), a few batches at once.
        var batches: [[(SHA256Digest, Piece)]] = [[]]
        var batchBytes = 0
        for (digest, piece) in pieces.sorted(by: { ($0.value.path, $0.value.offset) < ($1.value.path, $1.value.offset) }) where missing.contains(digest) {
            if batches[batches.count - 1].count >= 512 || batchBytes >= 8 << 20 {
                batches.append([])
                batchBytes = 0
            }
            batches[batches.count - 1].append((digest, piece))
            batchBytes += piece.length
        }
        let backend = self.backend
        let width = max(1, min(configuration.transferConcurrency, 4))
        var totals: [String: Int] = [:]
        for batch in batches { for (_, piece) in batch { totals[piece.recordName, default: 0] += piece.length } }
        typealias BatchResult = Result<(changed: Set<String>, sent: [String: Int]), SyncError>
        let outcome: Result<Set<String>, SyncError> = await withTaskGroup(of: BatchResult.self) { group in
            var changedNames = Set<String>()
            var sentSoFar: [String: Int] = [:]
            var failure: SyncError?
            var next = 0
            func add() {
                guard next < batches.count else { return }
                let batch = batches[next]
                next += 1
                group.addTask {
                    var uploads: [ChunkUpload] = []
                    var changed = Set<String>()
                    var sent: [String: Int] = [:]
                    for (digest, piece) in batch {
                        sent[piece.recordName, default: 0] += piece.length
                        if let bytes = piece.bytes {
                            uploads.append(ChunkUpload(digest: digest, bytes: bytes))
                            continue
                        }
                        // Read back from the file: if it no longer hashes right, the file changed.
                        guard let data = ContentReader.readRange(piece.path, offset: piece.offset, length: piece.length),
                              SHA256Digest(hashing: data) == digest else {
                            changed.insert(piece.recordName)
                            continue
                        }
                        uploads.append(ChunkUpload(digest: digest, bytes: data))
                    }
                    do throws(SyncError) {
                        if !uploads.isEmpty { try await backend.uploadChunks(uploads) }
                        return .success((changed, sent))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            for _ in 0..<width { add() }
            while let result = await group.next() {
                switch result {
                case .success(let batch):
                    changedNames.formUnion(batch.changed)
                    for (name, bytes) in batch.sent { sentSoFar[name, default: 0] += bytes }
                    noteUploadProgress(sentSoFar.filter { batch.sent[$0.key] != nil }, of: totals)
                case .failure(let error): failure = failure ?? error
                }
                if failure == nil { add() }
            }
            if let failure { return .failure(failure) }
            return .success(changedNames)
        }
        changed.formUnion(try outcome.get())
        try writeIndex { db in
            for row in rows {
                if changed.contains(row.recordName) {
                    try db.cachedStatement(sql: "UPDATE item SET needsRead = 1, chunksUploaded = 0 WHERE recordName = ?").execute(arguments: [row.recordName])
                } else {
                    try db.cachedStatement(sql: "UPDATE item SET chunksUploaded = 1 WHERE recordName = ?").execute(arguments: [row.recordName])
                }
            }
        }
        return changed
    }
}
