import DocSyncCore
import DocSyncStorage
import GRDB

/// How often a sent item's index row is written: once per send. A save read for a page
/// (`preparePage`) keeps what was read — digest, asset, size and times, where its chunks
/// lie — in the page, not in the index, and the server's answer writes all of it with the
/// acknowledged record in one row update (besides the write that recorded the change, which
/// is the scan's). Only a document over `progressThreshold`, or one whose bytes are read
/// again when uploaded (their chunk locations must be in the index), is also written when
/// its page is prepared (as uploading, 0 %) and as its chunks travel.
///
/// Until the answer, the index still holds the row as it was before the read (`needsRead`
/// set): whatever stops the send first (the process, an error) leaves the item to be read
/// again, which is what the row says. A failed save's read is written before the failure is
/// handled (`writeBackRead`), as it was once with the page.
extension Sender {
    enum SentRowWrites {
        /// Documents larger than this show their upload's progress (`isUploading`,
        /// `percentUploaded`) while their chunks travel.
        static let progressThreshold: Int64 = 1 << 20

        /// Whether `row`, read for a page with `content`, is written only with its answer.
        static func waitsForAnswer(_ row: IndexItem, content: ReadContent?) -> Bool {
            switch row.kind {
            case .folder, .symlink, .value, .sealed: return true
            case .document: return content?.bytes != nil && row.size <= progressThreshold
            }
        }
    }

    /// What a page left unwritten until its answers: each row as the index holds it, and
    /// the chunks read for the documents among them.
    struct UnwrittenReads: Sendable {
        var stored: [String: IndexItem] = [:]
        /// Each stored row's fingerprint as the page read it (not computed again).
        var fingerprints: [String: IndexItem.Fingerprint] = [:]
        var chunks: [String: [ChunkRef]] = [:]

        func contains(_ recordName: String) -> Bool { stored[recordName] != nil }

        /// True when the index still holds `recordName`'s row as the page read it.
        func isCurrent(_ recordName: String, in db: Database) throws -> Bool {
            try fingerprints[recordName]?.isCurrent(db, recordName) == true
        }
    }

    /// Writes `sent` (a save read for its page and not written since) acknowledged as
    /// `record`, with its chunk locations. When the row changed since the page was
    /// prepared without a new local change (the same revision: something the engine did,
    /// such as a move), what was read is written over the row as it is now; when a local
    /// change came since, only the acknowledged record is taken (the change is sent on
    /// top of it, after being read).
    func settleSent(_ sent: IndexItem, acked record: DocSyncCore.Record, reads: UnwrittenReads, in db: Database) throws {
        guard let stored = reads.stored[sent.recordName] else { return }
        let current: IndexItem
        if try reads.isCurrent(sent.recordName, in: db) {
            current = stored
        } else {
            guard let now = try db.item(named: sent.recordName) else { return }
            guard now.revision == sent.revision else {
                var rebased = now
                rebased.acked = record
                try rebased.update(db, from: now)
                return
            }
            current = now
        }
        var settled = current
        settled.takeRead(from: sent)
        settled.settle(acked: record)
        try settled.update(db, from: current)
        if let chunks = reads.chunks[sent.recordName] { try db.setChunkLocations(of: sent.recordName, chunks: chunks) }
    }

    /// Writes what was read of the rows among `sent` that `reads` left unwritten and that
    /// did not change since their page was prepared, as the page would have: their answer
    /// was not a save (a failure, or none), and what happens next starts from the index.
    func writeBackRead(_ sent: [IndexItem], reads: UnwrittenReads) throws(SyncError) {
        let rows = sent.filter { reads.contains($0.recordName) }
        guard !rows.isEmpty else { return }
        try writeIndex { db in
            for row in rows {
                guard let stored = reads.stored[row.recordName], try reads.isCurrent(row.recordName, in: db) else { continue }
                var read = stored
                read.takeRead(from: row)
                try read.update(db, from: stored)
                if let chunks = reads.chunks[row.recordName] { try db.setChunkLocations(of: row.recordName, chunks: chunks) }
            }
        }
    }
}

extension IndexItem {
    /// Takes what reading `read`'s file found: its size and times as read, digest, asset and
    /// link target, and that nothing is left to read.
    mutating func takeRead(from read: IndexItem) {
        take(read.stat)
        digest = read.digest
        asset = read.asset
        symlinkTarget = read.symlinkTarget
        needsRead = read.needsRead
    }
}
