import DocSyncCore
import DocSyncStorage
import Foundation
import GRDB

/// A person's choice over what a folder holds back (SPEC §4a, `docs-status deletions`):
/// send the held deletions, or bring the held items back from the backend.
extension FolderEngine {
    /// The items held back now, at most `limit` of them (by path), and
    /// how many there are: a held folder holds every item of its index, the brake its
    /// pending deletions.
    public func heldItems(limit: Int) -> (items: [HeldItem], total: Int) {
        let folderHeld = published.withLock { $0.safety.heldReason != nil }
        let condition = folderHeld ? "1" : "pending = 2"
        let found = try? index.readLatest { db -> ([HeldItem], Int) in
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE \(condition)") ?? 0
            let rows = try Row.fetchAll(db, sql: "SELECT path, kind, size FROM item WHERE \(condition) ORDER BY path LIMIT ?", arguments: [limit])
            return (rows.map { HeldItem(folder: configuration.zone.name, path: $0[0], kind: $0[1], size: $0[2]) }, total)
        }
        return found.map { (items: $0.0, total: $0.1) } ?? ([], 0)
    }

    /// `--confirm`: the held deletions are sent. A held folder whose root is there but not
    /// marked gets its marker back, and what is missing from it is deleted everywhere. A
    /// root that is missing (or not a directory) was deleted on purpose: every item is
    /// deleted everywhere at once, and the folder starts again empty, never created — except
    /// in a share on a participant's device, where nothing is deleted and the share is left
    /// (SPEC §11: nothing a participant does deletes the owner's data).
    func confirmHeldDeletions(root: RootCheck, loop: inout EngineLoop) async -> [ActionOutcome] {
        let folder = configuration.zone.name
        if case .held(let reason) = root {
            guard reason == .markerMissing || reason == .markerForeign else {
                if configuration.share != nil {
                    do throws(SyncError) {
                        let entry = try await leaveShare()
                        return [ActionOutcome(folder: folder, path: ".", done: true,
                                              message: "left the share \(entry.share): nothing was deleted, for anyone; this device no longer syncs it")]
                    } catch {
                        return [ActionOutcome(folder: folder, path: ".", done: false, message: "cannot leave the share: \(error.message)")]
                    }
                }
                return await deleteEverythingOfAMissingRoot()
            }
            do throws(SyncError) { try remark(loop: &loop) } catch {
                return [ActionOutcome(folder: folder, path: ".", done: false, message: error.message)]
            }
            updateSafety { $0.deletionsConfirmed = true }
            do throws(SyncError) { try reconciler.reconcile([EngineInbox.Scope(path: nil, subtree: true)], loop: &loop) } catch {
                return [ActionOutcome(folder: folder, path: ".", done: false, message: "the folder's marker is back, but comparing the folder failed: \(error.message)")]
            }
        } else {
            updateSafety { $0.deletionsConfirmed = true }
        }
        let pending = (try? index.readLatest { db in try String.fetchAll(db, sql: "SELECT path FROM item WHERE pending = 2 ORDER BY path") }) ?? []
        logger.notice("held deletions confirmed by a person", metadata: ["path": "\(configuration.root.path)", "deletions": "\(pending.count)"])
        inbox.withLock { $0.send = true }
        return pending.map { ActionOutcome(folder: folder, path: $0, done: true, message: "deletion confirmed: sent to the other devices") }
    }

    /// The confirmed deletion of a folder whose root is gone: each item's record is deleted
    /// on the backend (an item changed elsewhere meanwhile stays there: the edit wins), the
    /// index is emptied and the change token dropped, so that a folder put at the path later
    /// joins the zone afresh and receives whatever lives in it then.
    private func deleteEverythingOfAMissingRoot() async -> [ActionOutcome] {
        let folder = configuration.zone.name
        let rows: [IndexItem]
        do { rows = try readIndex { db in try IndexItem.fetchAll(db, sql: "SELECT * FROM item WHERE acked IS NOT NULL ORDER BY path DESC") } } catch {
            return [ActionOutcome(folder: folder, path: ".", done: false, message: error.message)]
        }
        var outcomes: [ActionOutcome] = []
        for start in stride(from: 0, to: rows.count, by: RecordBatch.maximumItems) {
            let slice = rows[start..<min(start + RecordBatch.maximumItems, rows.count)]
            let batch = RecordBatch(zone: configuration.zone, deletions: slice.map {
                RecordDeletion(id: RecordID(zone: configuration.zone, recordName: $0.recordName), baseTag: $0.acked?.changeTag, device: configuration.device)
            })
            let result: ModifyResult
            do { result = try await backend.modifyRecords(batch) } catch {
                outcomes += slice.map { ActionOutcome(folder: folder, path: $0.path.string, done: false, message: "not sent: \(error.message); confirm again") }
                continue
            }
            for row in slice {
                let id = RecordID(zone: configuration.zone, recordName: row.recordName)
                if result.deleted.contains(id) {
                    outcomes.append(ActionOutcome(folder: folder, path: row.path.string, done: true, message: "deleted on every device"))
                } else if result.failed[id]?.code == .serverRecordChanged {
                    outcomes.append(ActionOutcome(folder: folder, path: row.path.string, done: true, message: "kept: changed on another device meanwhile (the edit wins)"))
                } else {
                    outcomes.append(ActionOutcome(folder: folder, path: row.path.string, done: false, message: result.failed[id]?.message ?? "not deleted"))
                }
            }
        }
        if outcomes.allSatisfy(\.done) {
            do throws(SyncError) {
                try writeIndex { db in
                    try db.execute(sql: "DELETE FROM item")
                    try db.setChangeToken(nil)
                }
            } catch {
                return outcomes + [ActionOutcome(folder: folder, path: ".", done: false, message: error.message)]
            }
            updateSafety { state in
                state.heldReason = nil
                state.heldSince = nil
                state.brakeEngagedAt = nil
                state.deletionsSentSinceSettled = 0
            }
        }
        logger.notice("a missing folder's deletion confirmed by a person", metadata: ["path": "\(configuration.root.path)", "items": "\(rows.count)"])
        return outcomes
    }

    /// `--restore`: every held item comes back from the backend as it is there (a
    /// placeholder in an on-demand folder). Refused while the root is missing: nothing is
    /// ever written where the folder is not.
    func restoreHeldItems(root: RootCheck, loop: inout EngineLoop) async -> [ActionOutcome] {
        let folder = configuration.zone.name
        if case .held(let reason) = root {
            guard reason == .markerMissing || reason == .markerForeign else {
                return [ActionOutcome(folder: folder, path: ".", done: false, message:
                    "refused: \(configuration.root.path) is missing or not a directory, and nothing is written where the folder is not; "
                        + "put the folder back (it resumes by itself)")]
            }
            do throws(SyncError) {
                try remark(loop: &loop)
                try reconciler.reconcile([EngineInbox.Scope(path: nil, subtree: true)], loop: &loop)
            } catch {
                return [ActionOutcome(folder: folder, path: ".", done: false, message: error.message)]
            }
        }
        let rows: [IndexItem]
        do {
            rows = try readIndex { db in try IndexItem.fetchAll(db, sql: "SELECT * FROM item WHERE pending = 2") }
        } catch {
            return [ActionOutcome(folder: folder, path: ".", done: false, message: error.message)]
        }
        var current: [RecordID: DocSyncCore.Record] = [:]
        let ids = rows.map { RecordID(zone: configuration.zone, recordName: $0.recordName) }
        for start in stride(from: 0, to: ids.count, by: RecordBatch.maximumItems) {
            do {
                current.merge(try await backend.fetchRecords(Array(ids[start..<min(start + RecordBatch.maximumItems, ids.count)]))) { $1 }
            } catch {
                return rows.map { ActionOutcome(folder: configuration.zone.name, path: $0.path.string, done: false, message: "the backend cannot be asked: \(error.message); try again") }
            }
        }
        // Each held item leaves the index and comes back as the backend has it, through the
        // path remote changes take (folders first, new files written ahead and put in place
        // together, placeholders in an on-demand folder). One deleted elsewhere meanwhile is
        // simply gone.
        let records = rows.compactMap { current[RecordID(zone: configuration.zone, recordName: $0.recordName)] }
        var failure: SyncError?
        await showingActivity(FolderActivity.restoring, total: records.count) { (progress) throws(Never) in
            do throws(SyncError) {
                try writeIndex { db in for row in rows { try db.deleteItem(named: row.recordName) } }
                guard let token = loadToken() else { throw SyncError(.changeTokenExpired, "this device has not fetched the folder yet") }
                for start in stride(from: 0, to: records.count, by: StorageLimits.maximumPageSize) {
                    let page = Array(records[start..<min(start + StorageLimits.maximumPageSize, records.count)])
                    // Pending while written back, as a fetched page is (the apply counts them down).
                    updateLive {
                        $0.pendingDownloads = page.count
                        $0.pendingDownloadBytes = page.reduce(0) { $0 + $1.size }
                    }
                    defer { updateLive { $0.pendingDownloads = 0; $0.pendingDownloadBytes = 0 } }
                    _ = try await fetcher.apply(ChangeSet(changed: page, deleted: [], token: token, moreComing: false), loop: &loop)
                    progress(start + page.count)
                }
            } catch {
                // What did not come back comes with the next fetch, which starts from the beginning.
                failure = error
                try? storeToken(nil)
                inbox.withLock { $0.fetch = true }
            }
        }
        _ = decideDeletionGate(lastLocalDeletion: loop.lastLocalDeletion)
        let outcomes = rows.map { row -> ActionOutcome in
            let restored = (try? readIndex { db in try db.item(named: row.recordName) }) ?? nil
            let done = current[RecordID(zone: configuration.zone, recordName: row.recordName)] == nil || restored != nil
            let message = current[RecordID(zone: configuration.zone, recordName: row.recordName)] == nil ? "deleted on another device meanwhile: nothing to bring back"
                : restored?.isPlaceholder == true ? "brought back as a placeholder"
                : restored != nil ? "brought back from the backend"
                : "not brought back yet (\(failure?.message ?? "see docs-status errors")); it comes with the next fetch"
            return ActionOutcome(folder: configuration.zone.name, path: (restored?.path ?? row.path).string, done: done, message: message)
        }
        logger.notice("held items brought back by a person", metadata: ["path": "\(configuration.root.path)", "items": "\(outcomes.filter(\.done).count)"])
        return outcomes
    }

    /// Writes the root's marker again, naming the instance the index recorded.
    private func remark(loop: inout EngineLoop) throws(SyncError) {
        let instance = published.withLock { $0.safety.markerInstance } ?? environment.newRecordName()
        try RootMarker.write(instance: instance, zone: configuration.zone, into: configuration.root.path, modified: environment.wallNow(), in: fileSystem)
        updateSafety { $0.markerInstance = instance }
        _ = checkRoot(loop: &loop)
    }
}
