import DocSyncCore
import DocSyncStorage
import Foundation
import GRDB

/// A save's answer, recorded item by item (SPEC §5): saved, deleted, changed elsewhere, or failed.
extension Sender {
    /// Records the backend's answer to one modify request, item by item. When the answer
    /// carries a token past the batch's own changes and the stored token is still the one
    /// the batch named (no fetch stored another meanwhile), that token is stored with the
    /// items: the notification of this save then finds nothing to fetch back. A save whose
    /// read waited for its answer (`reads`) is written once here, read and settled. Records
    /// changed elsewhere are kept in `loop` for the plan after the send.
    func record(_ result: ModifyResult, sent: [IndexItem], reads: UnwrittenReads, knownToken: ChangeToken?,
                loop: inout EngineLoop) async throws(SyncError) {
        let sentRows = Dictionary(sent.map { ($0.recordName, $0) }, uniquingKeysWith: { a, _ in a })
        logger.trace("a batch answered", metadata: ["saved": "\(result.saved.count)", "deleted": "\(result.deleted.map(\.recordName).sorted())",
                                                    "failed": "\(result.failed.map { "\($0.key.recordName): \($0.value.code)" }.sorted())"])
        // What was remembered until an answer came is done with (a conflict's answer is
        // matched against it first, below).
        try engine.forgetAnswered(result.saved.keys.map(\.recordName) + result.deleted.map(\.recordName))
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
                if let path { try db.refreshConflictFlags(around: [path]) }
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
                if try engine.onlyMoved(row) {
                    // Deleted elsewhere, and only moved here (by the engine, or to another
                    // folder): nobody edited it, so the deletion wins (the file goes to the
                    // version store).
                    try engine.executor.deleteToVersionStore(row)
                    try engine.forgetAnswered([row.recordName])
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
            let own = try engine.settleUncertainSaves(changed: changedElsewhere)
            loop.noteAnswered(changedElsewhere.filter { !own.contains($0.id.recordName) })
        }
        if let wholeFailure { throw wholeFailure }
    }
}
