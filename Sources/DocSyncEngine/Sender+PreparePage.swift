import DocSyncCore
import DocSyncStorage
import Foundation
import GRDB
import Synchronization

/// The first half of sending a page of pending changes: reading what changed and recording
/// it in the index, ready for `send` to upload. Runs off the engine's task, while the page
/// before is being sent (see `sendPending`): it writes a row only if nothing else changed
/// that row since the page was fetched (a merge moving a folder's children, say), and
/// leaves such an item for the next pass.
extension Sender {
    /// Where the next page of pending items starts: after this (path, record name).
    struct PageCursor: Sendable {
        var path = ""
        var recordName = ""
    }

    /// A page read and recorded, waiting to be sent.
    struct PreparedPage: Sendable {
        /// The items to save, with their content read.
        var saves: [IndexItem]
        /// The acknowledged items to delete on the server.
        var deletions: [IndexItem]
        /// Bytes and chunks of the files read for this page, by record name.
        var justRead: [String: ReadContent]
        /// Digests the backend is known to hold (chunks of the acknowledged content replaced).
        var knownStored: Set<SHA256Digest>
        /// The page's last item: the next page starts after it.
        var cursor: PageCursor
        /// False when some item was changing while being read: it is read again later.
        var complete: Bool
        /// The index's row of each item to save or delete as it stood once the page was
        /// recorded: `changedSincePrepared` compares with these.
        var fingerprints: [String: IndexItem.Fingerprint]
        /// The saves read for this page whose row is written only with the server's answer
        /// (`SentRowWrites`): the row as the index holds it, by record name.
        var unwritten: [String: IndexItem]
        /// How many pending items the page covered, and how long reading them took (for the log).
        var itemCount: Int
        var preparation: Duration
    }

    /// The next 1,000 items meeting `condition` (a `FolderEngine.sendableCondition`) after a cursor's path
    /// and record name, in path order: found through the partial index `item_sendable`
    /// (migration v12), so a page costs what it holds, not the folder's size.
    static func pendingPageSQL(condition: String) -> String {
        """
        SELECT \(IndexItem.Fingerprint.columns), * FROM item WHERE \(condition) AND (path > ? OR (path = ? AND recordName > ?))
        ORDER BY path, recordName LIMIT 1000
        """
    }

    /// Reads the pending items after `cursor` (up to 1,000, fewer when their content fills
    /// the memory budget), writes what was read and decided to the index in one transaction,
    /// and returns what is to be sent; `nil` when nothing is pending after `cursor`.
    ///
    /// A save read here is written once, with the server's answer to it (`SentRowWrites`),
    /// unless it is a document over `SentRowWrites.progressThreshold` or one whose bytes are
    /// not kept for the upload: those are written here as uploading (0 %), their progress
    /// as their chunks travel, and then their answer. Everything else read or decided here
    /// (failed, too large, unchanged after all, dropped) is written here.
    func preparePage(after cursor: PageCursor) throws(SyncError) -> PreparedPage? {
        var fetched: [String: IndexItem.Fingerprint] = [:]
        let condition = engine.sendableCondition  // deletions only when the brake lets them go
        // The fingerprint's columns first, then the whole row (read by name: the repeated
        // columns hold the same values).
        let rows = try readIndex { db in
            // Decoded from the cursor's rows as they are stepped, without copying each row.
            let found = try Row.fetchCursor(db, sql: Self.pendingPageSQL(condition: condition), arguments: [cursor.path, cursor.path, cursor.recordName])
            var items: [IndexItem] = []
            while let row = try found.next() {
                let item = try IndexItem(row: row)
                fetched[item.recordName] = IndexItem.Fingerprint(row: row)
                items.append(item)
            }
            return items
        }
        guard let last = rows.last else { return nil }
        let started = environment.now()
        var cursor = PageCursor(path: last.path.string, recordName: last.recordName)
        var complete = true
        var saves: [IndexItem] = []
        var deletions: [IndexItem] = []
        // Rows to write back, in their final state for this step (read, failed, settled, or
        // marked as uploading).
        var written = Set<String>()
        // First read every changed item, then decide what to send.
        var page = rows
        var read: [(row: IndexItem, content: ReadContent?)] = []
        var unreadable = Set<String>()
        // Files' bytes are kept from this read for the upload, so they are neither read nor
        // hashed a second time: a page ends early once the files to read for it hold
        // `keptBudget` bytes (by the sizes the index records). Files over `keptFileLimit`
        // are read again, chunk by chunk, when they are uploaded. The files are read on
        // every core at once (`readConcurrently`).
        let keptBudget: Int64 = 16 << 20, keptFileLimit: Int64 = 32 << 20
        // Items whose content on disk was, until this read, the acknowledged content: its
        // chunks are on the server, so a small edit need not ask about them again.
        var wasAcknowledged = Set<String>()
        // The files to read: the page ends before the first one that would start once the
        // files before it (by their recorded sizes) fill the budget.
        var toRead: [Int] = []
        var expectedBytes: Int64 = 0
        for index in page.indices where page[index].pending == .save && page[index].needsRead {
            if expectedBytes >= keptBudget {
                // The rest of the page is read with the next one.
                page.removeSubrange(index...)
                cursor = PageCursor(path: page[index - 1].path.string, recordName: page[index - 1].recordName)
                break
            }
            if page[index].kind == .document, page[index].size > configuration.maxFileSize { continue }
            if let before = page[index].digest, page[index].acked?.contentDigest == before {
                wasAcknowledged.insert(page[index].recordName)
            }
            if page[index].kind == .document, page[index].size <= keptFileLimit { expectedBytes += page[index].size }
            toRead.append(index)
        }
        var readHere: [String: ReadContent?] = [:]
        for (index, outcome) in zip(toRead, readConcurrently(page, toRead, keepingUpTo: keptFileLimit)) {
            switch outcome.result {
            case .success(let content):
                page[index] = outcome.row
                read.append((page[index], content))
                readHere[page[index].recordName] = content
                written.insert(page[index].recordName)
            case .failure(let error) where error.code == .assetFileModified:
                complete = false
                unreadable.insert(page[index].recordName)
            case .failure(let error):
                markFailed(&page[index], error.message)
                written.insert(page[index].recordName)
                unreadable.insert(page[index].recordName)
            }
        }
        // Then decide each item's fate; one transaction writes every row in `written`.
        var dropped: [String] = []
        var unwritten = Set<String>()
        for index in page.indices where !unreadable.contains(page[index].recordName) {
            if page[index].pending == .delete {
                if page[index].acked == nil { dropped.append(page[index].recordName) } else { deletions.append(page[index]) }
                continue
            }
            if page[index].kind == .document, page[index].size > configuration.maxFileSize {
                markTooLarge(&page[index])
                written.insert(page[index].recordName)
                continue
            }
            if let acked = page[index].acked, page[index].record(zone: configuration.zone, device: configuration.device).isSameRecord(as: acked) {
                page[index].settle(acked: acked)
                written.insert(page[index].recordName)
                continue
            }
            if let content = readHere[page[index].recordName], SentRowWrites.waitsForAnswer(page[index], content: content) {
                // Written once, with the answer.
                written.remove(page[index].recordName)
                unwritten.insert(page[index].recordName)
            } else if page[index].kind == .document && !page[index].chunksUploaded {
                // Its chunks are about to travel: `isUploading` from 0 %.
                page[index].status.isUploading = true
                page[index].status.percentUploaded = 0
                written.insert(page[index].recordName)
            }
            saves.append(page[index])
        }
        var knownStored = Set<SHA256Digest>()
        var justRead: [String: ReadContent] = [:]
        for entry in read { if let content = entry.content { justRead[entry.row.recordName] = content } }
        var changedMeanwhile = Set<String>()
        // Rows not written keep the fingerprint they were fetched with.
        var fingerprints = fetched
        // Each row as it was fetched: only the columns this page changed are written.
        var stored: [String: IndexItem] = [:]
        for row in rows { stored[row.recordName] = row }
        let acknowledgedUnwritten = unwritten.intersection(wasAcknowledged)
        if !acknowledgedUnwritten.isEmpty {
            try readIndex { db in
                for name in acknowledgedUnwritten { knownStored.formUnion(try db.recordedChunks(of: name).map(\.digest)) }
            }
        }
        if !written.isEmpty || !dropped.isEmpty {
            let final = page.filter { written.contains($0.recordName) }
            try writeIndex { db in
                for row in final {
                    guard try fetched[row.recordName]?.isCurrent(db, row.recordName) == true else {
                        changedMeanwhile.insert(row.recordName)
                        continue
                    }
                    if wasAcknowledged.contains(row.recordName) {
                        knownStored.formUnion(try db.recordedChunks(of: row.recordName).map(\.digest))
                    }
                    if let before = stored[row.recordName] { try row.update(db, from: before) } else { try row.update(db) }
                    if let content = justRead[row.recordName] { try db.setChunkLocations(of: row.recordName, chunks: content.chunks) }
                    fingerprints[row.recordName] = IndexItem.Fingerprint(row)
                }
                for name in dropped {
                    guard try fetched[name]?.isCurrent(db, name) == true else {
                        changedMeanwhile.insert(name)
                        continue
                    }
                    try db.deleteItem(named: name)
                }
            }
        }
        saves.removeAll { changedMeanwhile.contains($0.recordName) }
        deletions.removeAll { changedMeanwhile.contains($0.recordName) }
        return PreparedPage(saves: saves, deletions: deletions, justRead: justRead, knownStored: knownStored, cursor: cursor,
                            complete: complete, fingerprints: fingerprints, unwritten: stored.filter { unwritten.contains($0.key) },
                            itemCount: page.count, preparation: environment.now() - started)
    }

    /// Reads the content of `page[i]` for each `i` of `indices`, on as many threads as the
    /// machine has cores, at most 4 (a file at a time each, taking the next as it finishes:
    /// more readers would only queue on the disk), and returns
    /// each item's row as the read updated it with what was read, in the order of `indices`.
    /// Reading a file touches nothing but its own row, so the reads are independent.
    private func readConcurrently(
        _ page: [IndexItem], _ indices: [Int], keepingUpTo keepLimit: Int64
    ) -> [(row: IndexItem, result: Result<ReadContent?, SyncError>)] {
        var outcomes = indices.map { (row: page[$0], result: Result<ReadContent?, SyncError>.success(nil)) }
        // One worker runs inline on this thread (`concurrentPerform` of one iteration).
        let workers = min(ProcessInfo.processInfo.activeProcessorCount, 4, indices.count)
        let next = Atomic<Int>(0)
        outcomes.withUnsafeMutableBufferPointer { slots in
            // Each slot is written by the one worker that took its number.
            nonisolated(unsafe) let slots = slots
            DispatchQueue.concurrentPerform(iterations: workers) { _ in
                while true {
                    let slot = next.add(1, ordering: .relaxed).oldValue
                    guard slot < slots.count else { return }
                    slots[slot].result = Result { () throws(SyncError) in try engine.readContentUnsaved(&slots[slot].row, keepingUpTo: keepLimit) }
                }
            }
        }
        return outcomes
    }

    /// The items of `page` whose row changed in the index since it was prepared (by the
    /// sending of the page before): they are left out of this page and sent on the next pass.
    func changedSincePrepared(_ page: PreparedPage) throws(SyncError) -> Set<String> {
        try readIndex { db in
            var changed = Set<String>()
            for row in page.saves + page.deletions where try page.fingerprints[row.recordName]?.isCurrent(db, row.recordName) != true {
                changed.insert(row.recordName)
            }
            return changed
        }
    }
}

extension IndexItem {
    /// What the engine may change in a row while a page is being prepared, as stored (no
    /// column is decoded): equal fingerprints mean the index still holds the row a page was
    /// prepared from. The acknowledged record is compared by its stored bytes.
    struct Fingerprint: Equatable, Sendable {
        var path: String
        var pending: Int64
        var revision: Int64
        var size: Int64
        var mtime: Int64
        var inode: Int64
        var digest: String?
        var needsRead: Bool
        var acked: Data?

        /// The columns, in the order `init(row:)` reads them.
        static let columns = "path, pending, revision, size, mtime, inode, digest, needsRead, acked"

        /// Reads the first columns of a row selected as `columns` (by position: cheaper than by name).
        init(row: Row) {
            path = row[0]
            pending = row[1]
            revision = row[2]
            size = row[3]
            mtime = row[4]
            inode = row[5]
            digest = row[6]
            needsRead = row[7]
            acked = row[8]
        }

        /// The fingerprint `item`'s row has once written (`insert` or `update`): the same
        /// values `columnValues` stores, without reading the row back.
        init(_ item: IndexItem) {
            path = item.path.string
            pending = Int64(item.pending.rawValue)
            revision = item.revision
            size = item.size
            mtime = item.modified.nanosecondsSince1970
            inode = Int64(bitPattern: item.inode)
            digest = item.digest?.hex
            needsRead = item.needsRead
            acked = item.acked.map { CompactCoding.encode($0) }
        }

        /// True when the index has a row named `recordName` with this fingerprint (compared
        /// by SQLite, nothing read back).
        func isCurrent(_ db: Database, _ recordName: String) throws -> Bool {
            let statement = try db.directStatement(sql: """
                SELECT 1 FROM item WHERE recordName = ? AND path = ? AND pending = ? AND revision = ? AND size = ? AND mtime = ?
                    AND inode = ? AND digest IS ? AND needsRead = ? AND acked IS ?
                """)
            statement.bind(1, recordName)
            statement.bind(2, path)
            statement.bind(3, pending)
            statement.bind(4, revision)
            statement.bind(5, size)
            statement.bind(6, mtime)
            statement.bind(7, inode)
            statement.bind(8, digest)
            statement.bind(9, needsRead)
            statement.bind(10, acked)
            return try statement.yieldsRow()
        }
    }
}
