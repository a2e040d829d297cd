import DocSyncCore
import DocSyncStorage
import Foundation
import GRDB

/// The send job: pending local changes read a page at a time (`preparePage`), their missing
/// chunks uploaded (`uploadChunks`), then their records saved and deleted in batches of at
/// most 400, each item's answer recorded (`record`; SPEC §3, §5).
///
/// Owns nothing between sends: the index holds what is pending, and what a send leaves for
/// the loop (records the server answered with, changed elsewhere) goes into the loop's
/// state it is given. It reaches the folder, the index and the backend through `engine`,
/// and may run on tasks of its own within a send (it is `Sendable`, a value).
struct Sender: EngineJob {
    let engine: FolderEngine
    typealias ReadContent = FolderEngine.ReadContent
}

extension Sender {
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
    ///
    /// Records the server answered a save with, changed elsewhere, are kept in `loop` for the
    /// plan after the send (`applyAnsweredChanges`), also when the send stops with an error.
    func sendPending(loop: inout EngineLoop) async throws(SyncError) -> Bool {
        guard configuration.direction != .receiveOnly else { return true }
        if environment.serial { return try await sendPendingSerially(loop: &loop) }
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
                if let uploaded, try await save(uploaded, batchLimit: &batchLimit, loop: &loop) == false { complete = false }
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
    private func sendPendingSerially(loop: inout EngineLoop) async throws(SyncError) -> Bool {
        var complete = true
        var batchLimit = RecordBatch.maximumItems
        var cursor = PageCursor()
        while let page = try preparePage(after: cursor) {
            cursor = page.cursor
            let uploaded = try await upload(page)
            if try await save(uploaded, batchLimit: &batchLimit, loop: &loop) == false { complete = false }
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
    private func save(_ uploaded: UploadedPage, batchLimit: inout Int, loop: inout EngineLoop) async throws(SyncError) -> Bool {
        let page = uploaded.page
        let started = environment.now()
        let changedMeanwhile = try changedSincePrepared(page)
        var saves = page.saves.filter { !changedMeanwhile.contains($0.recordName) && !uploaded.unsent.contains($0.recordName) }
        let deletedElsewhere = try await engine.dropCreatesDeletedElsewhere(saves)
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
                knownToken: engine.loadToken())
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
                try engine.noteUncertainSaves(batch.saves)
                logger.trace("a batch's answer was lost", metadata: ["saves": "\(batch.saves.map(\.id.recordName).sorted())"])
                throw error
            }
            try await record(result, sent: slice.map(\.row), reads: uploaded.reads, knownToken: batch.knownToken, loop: &loop)
            engine.noteDeletionsSent(batch.deletions.filter { result.deleted.contains($0.id) }.count)
            items.removeFirst(slice.count)
        }
        logger.trace("sent a page", metadata: ["items": "\(page.itemCount)", "prepared": "\(page.preparation)",
                                               "chunks": "\(uploaded.took)", "records": "\(environment.now() - started)"])
        return page.complete && uploaded.unsent.isEmpty
    }

    /// Sets the per-file error of a file over `max_file_size` (the caller writes the row).
    func markTooLarge(_ row: inout IndexItem) {
        let message = "file is \(ByteCountFormatter.string(fromByteCount: row.size, countStyle: .file)), over max_file_size "
            + "(\(ByteCountFormatter.string(fromByteCount: configuration.maxFileSize, countStyle: .file))): \(FolderStatus.keptHereTooLarge)"
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
}
