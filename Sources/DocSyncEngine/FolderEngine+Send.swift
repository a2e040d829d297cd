import DocSyncCore
import DocSyncStorage
import Foundation
import GRDB

/// Sending pending local changes: read content, upload missing chunks, then save and delete
/// records in batches of at most 400, recording each item's answer (SPEC §3, §5).
extension FolderEngine {
    /// Sends everything pending. Returns false when some item had to wait (its file was
    /// changing while being read): the loop tries again shortly.
    ///
    /// Pages go in (path, record name) order: a folder is always sent before what is inside
    /// it, so another device never sees a child's new path before its folder's. Three pages
    /// are in flight at once: while one page's records are saved, the next page's chunks are
    /// uploaded and the page after it is read (`preparePage`), each on a thread of its own.
    /// Records are still saved one page after the other, in order, and a page's records only
    /// after all of its chunks are on the backend. In a serial environment each page is read,
    /// uploaded and saved before the next is read.
    func sendPending() async throws(SyncError) -> Bool {
        guard configuration.direction != .receiveOnly else { return true }
        if environment.serial { return try await sendPendingSerially() }
        var complete = true
        var batchLimit = RecordBatch.maximumItems
        var preparing: Task<Result<PreparedPage?, SyncError>, Never>? = prepareInBackground(after: PageCursor())
        var uploading: Task<Result<UploadedPage, SyncError>, Never>?
        do throws(SyncError) {
            while let prepared = preparing {
                let page = try await prepared.value.get()
                preparing = page.map { prepareInBackground(after: $0.cursor) }
                let uploaded = try await uploading?.value.get()
                uploading = page.map { uploadInBackground($0) }
                if let uploaded, try await save(uploaded, batchLimit: &batchLimit) == false { complete = false }
            }
            return complete
        } catch {
            // Nothing is left reading the folder, uploading or writing the index.
            preparing?.cancel()
            uploading?.cancel()
            _ = await preparing?.value
            _ = await uploading?.value
            throw error
        }
    }

    /// `sendPending` one page at a time, on the calling task.
    private func sendPendingSerially() async throws(SyncError) -> Bool {
        var complete = true
        var batchLimit = RecordBatch.maximumItems
        var cursor = PageCursor()
        while let page = try preparePage(after: cursor) {
            cursor = page.cursor
            let uploaded = try await upload(page)
            if try await save(uploaded, batchLimit: &batchLimit) == false { complete = false }
        }
        return complete
    }

    /// A prepared page whose chunks are on the backend, except those of `unsent` (record
    /// names whose file changed meanwhile): what is left is saving its records.
    struct UploadedPage: Sendable {
        var page: PreparedPage
        var unsent: Set<String>
        /// The page's saves whose read is written with their answer.
        var reads: UnwrittenReads
        var took: Duration
    }

    /// Reads the page after `cursor` on a thread of its own (it blocks on files and the index).
    private func prepareInBackground(after cursor: PageCursor) -> Task<Result<PreparedPage?, SyncError>, Never> {
        Task {
            guard !Task.isCancelled else { return .success(nil) }
            do throws(SyncError) {
                return .success(try await offload { () throws(SyncError) in try self.preparePage(after: cursor) })
            } catch {
                return .failure(error)
            }
        }
    }

    /// Uploads a prepared page's missing chunks and manifest nodes on a task of its own.
    private func uploadInBackground(_ page: PreparedPage) -> Task<Result<UploadedPage, SyncError>, Never> {
        Task {
            do throws(SyncError) {
                return .success(try await upload(page))
            } catch {
                return .failure(error)
            }
        }
    }

    /// Uploads a prepared page's missing chunks and manifest nodes.
    private func upload(_ page: PreparedPage) async throws(SyncError) -> UploadedPage {
        let started = environment.now()
        let unsent = try await uploadChunks(for: page.saves.filter { $0.kind == .document && !$0.chunksUploaded }, justRead: page.justRead,
                                            knownStored: page.knownStored)
        var reads = UnwrittenReads(stored: page.unwritten)
        for name in page.unwritten.keys {
            reads.fingerprints[name] = page.fingerprints[name]
            reads.chunks[name] = page.justRead[name]?.chunks
        }
        var uploaded = page
        uploaded.justRead = [:]  // the bytes are on the backend: not kept while the records wait
        return UploadedPage(page: uploaded, unsent: unsent, reads: reads, took: environment.now() - started)
    }

    /// Saves and deletes an uploaded page's records in batches, recording each answer; rows
    /// that changed since the page was prepared (the saving of the page before may have
    /// moved them) are left for the next pass. Returns false when some item must be read again.
    private func save(_ uploaded: UploadedPage, batchLimit: inout Int) async throws(SyncError) -> Bool {
        let page = uploaded.page
        let started = environment.now()
        let changedMeanwhile = try changedSincePrepared(page)
        var saves = page.saves.filter { !changedMeanwhile.contains($0.recordName) && !uploaded.unsent.contains($0.recordName) }
        let deletedElsewhere = try await dropCreatesDeletedElsewhere(saves)
        if !deletedElsewhere.isEmpty { saves.removeAll { deletedElsewhere.contains($0.recordName) } }
        let deletions = page.deletions.filter { !changedMeanwhile.contains($0.recordName) }
        var items = saves.map { (row: $0, delete: false) } + deletions.map { (row: $0, delete: true) }
        while !items.isEmpty {
            let slice = Array(items.prefix(batchLimit))
            let batch = RecordBatch(
                zone: configuration.zone,
                saves: slice.filter { !$0.delete }.map { $0.row.record(zone: configuration.zone, device: configuration.device) },
                deletions: slice.filter(\.delete).map {
                    RecordDeletion(id: RecordID(zone: configuration.zone, recordName: $0.row.recordName), baseTag: $0.row.acked?.changeTag,
                                   device: configuration.device)
                },
                knownToken: loadToken())
            let result: ModifyResult
            do {
                result = try await backend.modifyRecords(batch)
            } catch where error.code == .limitExceeded && batchLimit > 1 {
                batchLimit = max(1, batchLimit / 2)
                logger.notice("batch too large for the backend; splitting", metadata: ["items": "\(batchLimit)"])
                continue
            } catch where error.isTransient {
                // The batch may have landed: its saves are remembered until an answer comes.
                try writeBackRead(slice.map(\.row), reads: uploaded.reads)
                try noteUncertainSaves(batch.saves)
                logger.trace("a batch's answer was lost", metadata: ["saves": "\(batch.saves.map(\.id.recordName).sorted())"])
                throw error
            }
            try await record(result, sent: slice.map(\.row), reads: uploaded.reads, knownToken: batch.knownToken)
            noteDeletionsSent(batch.deletions.filter { result.deleted.contains($0.id) }.count)
            items.removeFirst(slice.count)
        }
        logger.trace("sent a page", metadata: ["items": "\(page.itemCount)", "prepared": "\(page.preparation)",
                                               "chunks": "\(uploaded.took)", "records": "\(environment.now() - started)"])
        return page.complete && uploaded.unsent.isEmpty
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

    /// Sets the per-file error of a file over `max_file_size` (the caller writes the row).
    func markTooLarge(_ row: inout IndexItem) {
        let message = "file is \(ByteCountFormatter.string(fromByteCount: row.size, countStyle: .file)), over max_file_size "
            + "(\(ByteCountFormatter.string(fromByteCount: configuration.maxFileSize, countStyle: .file))): kept on this device, not synced"
        markFailed(&row, message)
    }

    /// Sets a per-file upload error and logs it (the caller writes the row).
    func markFailed(_ row: inout IndexItem, _ message: String) {
        row.status.uploadingError = message
        row.status.isUploading = false
        logger.warning("cannot upload item", metadata: ["path": "\(row.path)", "record": "\(row.recordName)", "problem": "\(message)"])
    }

    /// Sets a per-file upload error, logs it and writes the row.
    func fail(_ row: inout IndexItem, _ message: String) throws(SyncError) {
        markFailed(&row, message)
        let final = row
        try writeIndex { db in try final.update(db) }
    }

    /// Records the backend's answer to one modify request, item by item. When the answer
    /// carries a token past the batch's own changes and the stored token is still the one
    /// the batch named (no fetch stored another meanwhile), that token is stored with the
    /// items: the notification of this save then finds nothing to fetch back. A save whose
    /// read waited for its answer (`reads`) is written once here, read and settled.
    private func record(_ result: ModifyResult, sent: [IndexItem], reads: UnwrittenReads, knownToken: ChangeToken?) async throws(SyncError) {
        let sentRows = Dictionary(sent.map { ($0.recordName, $0) }, uniquingKeysWith: { a, _ in a })
        logger.trace("a batch answered", metadata: ["saved": "\(result.saved.count)", "deleted": "\(result.deleted.map(\.recordName).sorted())",
                                                    "failed": "\(result.failed.map { "\($0.key.recordName): \($0.value.code)" }.sorted())"])
        // What was remembered until an answer came is done with (a conflict's answer is
        // matched against it first, below).
        try forgetAnswered(result.saved.keys.map(\.recordName) + result.deleted.map(\.recordName))
        try writeIndex { db in
            if let token = result.token, let knownToken, try db.changeToken() == knownToken {
                try db.setChangeToken(token)
            }
            for (id, saved) in result.saved {
                // Settled; or, when changed again meanwhile (another revision), still pending
                // and now based on this save.
                guard let row = sentRows[id.recordName] else { continue }
                if reads.contains(id.recordName) {
                    try settleSent(row, acked: saved, reads: reads, in: db)
                } else {
                    try db.settleItem(named: id.recordName, acked: saved, ifAt: row.revision)
                }
            }
            for id in result.deleted {
                let path = try db.item(named: id.recordName)?.path
                try db.deleteItem(named: id.recordName)
                if let path { try refreshConflictFlags(db, around: [path]) }
            }
        }
        try writeBackRead(result.failed.keys.compactMap { sentRows[$0.recordName] }, reads: reads)
        var wholeFailure: SyncError?
        var changedElsewhere: [DocSyncCore.Record] = []
        var changedElsewhereUnsent: [RecordID] = []
        for (id, error) in result.failed.sorted(by: { $0.key < $1.key }) {
            guard var row = try readIndex({ db in try db.item(named: id.recordName) }) else { continue }
            switch error.code {
            case .serverRecordChanged:
                // Changed elsewhere since this save's base: the server's record is a remote
                // change for the next plan (`applyAnsweredChanges`), not applied here.
                if let server = error.serverRecord { changedElsewhere.append(server) } else { changedElsewhereUnsent.append(id) }
            case .unknownItem:
                if try onlyMoved(row) {
                    // Deleted elsewhere, and only moved here (by the engine, or to another
                    // folder): nobody edited it, so the deletion wins (the file goes to the
                    // version store).
                    try deleteToVersionStore(row)
                    try forgetAnswered([row.recordName])
                    continue
                }
                logger.debug("a save found its record deleted on another device; the edit wins and is sent as new",
                             metadata: ["path": "\(row.path)", "record": "\(row.recordName)"])
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
        if !changedElsewhereUnsent.isEmpty {
            // A backend that answers without the server's record: asked for all of them at once.
            let fetched = try await backend.fetchRecords(changedElsewhereUnsent)
            changedElsewhere += changedElsewhereUnsent.compactMap { fetched[$0] }
        }
        if !changedElsewhere.isEmpty {
            // This device's own earlier saves, whose answers were lost, are acknowledged now;
            // the others wait for the plan after this send.
            let own = try settleUncertainSaves(changed: changedElsewhere)
            noteAnswered(changedElsewhere.filter { !own.contains($0.id.recordName) })
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
        // Each chunk's first place, in the order of the rows and of the chunks in each file:
        // a batch of chunks then reads (and is stored) as runs of adjacent bytes.
        var pieces: [(digest: SHA256Digest, piece: Piece)] = []
        var nodes: [SHA256Digest: Data] = [:]
        var changed = Set<String>()
        let stored = try readIndex { db in
            var located: [String: [ChunkRef]] = [:]
            for row in rows where justRead[row.recordName] == nil { located[row.recordName] = try db.recordedChunks(of: row.recordName) }
            return located
        }
        let chunkCount = rows.reduce(0) { $0 + (justRead[$1.recordName]?.chunks.count ?? stored[$1.recordName]?.count ?? 0) }
        var seen = Set<SHA256Digest>(minimumCapacity: chunkCount)
        pieces.reserveCapacity(chunkCount)
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
            let path = absolute(row.path)
            var offset: Int64 = 0
            for ref in refs {
                if seen.insert(ref.digest).inserted {
                    // A slice shares the file's buffer: no copy.
                    let bytes = content?.bytes.map { $0[Int(offset)..<Int(offset) + ref.length] }
                    pieces.append((ref.digest, Piece(recordName: row.recordName, path: path, offset: offset, length: ref.length, bytes: bytes)))
                }
                offset += Int64(ref.length)
            }
        }
        var missing = Set<SHA256Digest>(minimumCapacity: pieces.count)
        let wanted = pieces.map(\.digest).filter { !knownStored.contains($0) } + nodes.keys.filter { !knownStored.contains($0) }
        for start in stride(from: 0, to: wanted.count, by: 4000) {
            missing.formUnion(try await backend.missingChunks(Array(wanted[start..<min(start + 4000, wanted.count)])))
        }
        // Manifest nodes are small: they travel together, in one request (one pack) at most.
        let missingNodes = nodes.filter { missing.contains($0.key) }.map { ChunkUpload(digest: $0.key, bytes: $0.value, isVerified: true) }
        if !missingNodes.isEmpty { try await backend.uploadChunks(missingNodes) }
        // Chunks travel in batches (one flush or one request each), a few batches at once.
        // A batch is cut at 8 MB, which at about 6.8 KiB a chunk is some 1,200 chunks (and at
        // 4,096 chunks of tiny files): each batch costs a pack, its flush and a transaction
        // over the backend's digest index (or one request), so fewer, fuller batches cost
        // less than many small ones.
        var batches: [[(SHA256Digest, Piece)]] = [[]]
        var batchBytes = 0
        for (digest, piece) in pieces where missing.contains(digest) {
            if batches[batches.count - 1].count >= 4096 || batchBytes >= 8 << 20 {
                batches.append([])
                batchBytes = 0
            }
            batches[batches.count - 1].append((digest, piece))
            batchBytes += piece.length
        }
        let backend = self.backend
        let width = environment.serial ? 1 : max(1, min(configuration.transferConcurrency, 4))
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
                            uploads.append(ChunkUpload(digest: digest, bytes: bytes, isVerified: true))  // hashed when read
                            continue
                        }
                        // Read back from the file: if it no longer hashes right, the file changed.
                        guard let data = ContentReader.readRange(piece.path, offset: piece.offset, length: piece.length, in: self.fileSystem),
                              SHA256Digest(hashing: data) == digest else {
                            changed.insert(piece.recordName)
                            continue
                        }
                        uploads.append(ChunkUpload(digest: digest, bytes: data, isVerified: true))
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
                    // Progress is worth a write only for files that take more than a batch.
                    noteUploadProgress(sentSoFar.filter { batch.sent[$0.key] != nil && totals[$0.key, default: 0] > SentRowWrites.progressThreshold }, of: totals)
                case .failure(let error): failure = failure ?? error
                }
                if failure == nil { add() }
            }
            if let failure { return .failure(failure) }
            return .success(changedNames)
        }
        changed.formUnion(try outcome.get())
        // The others are marked `chunksUploaded` when their record is saved (`settleItem`);
        // one whose save fails asks the backend about its chunks again, which is cheap.
        if !changed.isEmpty {
            try writeIndex { db in
                let reread = try db.cachedStatement(sql: "UPDATE item SET needsRead = 1, chunksUploaded = 0 WHERE recordName = ?")
                for name in changed { try reread.execute(arguments: [name]) }
            }
        }
        return changed
    }
}
