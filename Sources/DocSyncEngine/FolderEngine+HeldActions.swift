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
        let folderHeld = safety.withLock { $0.heldReason != nil }
        let condition = folderHeld ? "1" : "pending = 2"
        let found = try? index.readLatest { db -> ([HeldItem], Int) in
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE \(condition)") ?? 0
            let rows = try Row.fetchAll(db, sql: "SELECT path, kind, size FROM item WHERE \(condition) ORDER BY path LIMIT ?", arguments: [limit])
            return (rows.map { HeldItem(folder: configuration.zone.name, path: $0[0], kind: $0[1], size: $0[2]) }, total)
        }
        return found.map { (items: $0.0, total: $0.1) } ?? ([], 0)
    }

    /// `--confirm`: the held deletions are sent. A held folder whose root is there but not
    /// marked gets its marker back, and what is missing from it is deleted everywhere; a
    /// missing root is refused (there is nothing to mark: create the folder first).
    func confirmHeldDeletions(root: RootCheck) -> [ActionOutcome] {
        let folder = configuration.zone.name
        if case .held(let reason) = root {
            guard reason == .markerMissing || reason == .markerForeign else {
                return [ActionOutcome(folder: folder, path: ".", done: false, message:
                    "refused: \(configuration.root.path) is missing or not a directory, so nothing can be compared with it; put the folder back "
                        + "(it resumes by itself), or to delete its files on every device create an empty directory there and confirm again")]
            }
            do throws(SyncError) { try remark() } catch {
                return [ActionOutcome(folder: folder, path: ".", done: false, message: error.message)]
            }
            updateSafety { $0.deletionsConfirmed = true }
            do throws(SyncError) { try reconcile([EngineInbox.Scope(path: nil, subtree: true)]) } catch {
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

    /// `--restore`: every held item comes back from the backend as it is there (a
    /// placeholder in an on-demand folder). Refused while the root is missing: nothing is
    /// ever written where the folder is not.
    func restoreHeldItems(root: RootCheck) async -> [ActionOutcome] {
        let folder = configuration.zone.name
        if case .held(let reason) = root {
            guard reason == .markerMissing || reason == .markerForeign else {
                return [ActionOutcome(folder: folder, path: ".", done: false, message:
                    "refused: \(configuration.root.path) is missing or not a directory, and nothing is written where the folder is not; "
                        + "put the folder back (it resumes by itself)")]
            }
            do throws(SyncError) {
                try remark()
                try reconcile([EngineInbox.Scope(path: nil, subtree: true)])
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
        var outcomes: [ActionOutcome] = []
        var current: [RecordID: DocSyncCore.Record] = [:]
        let ids = rows.map { RecordID(zone: configuration.zone, recordName: $0.recordName) }
        for start in stride(from: 0, to: ids.count, by: RecordBatch.maximumItems) {
            do {
                current.merge(try await backend.fetchRecords(Array(ids[start..<min(start + RecordBatch.maximumItems, ids.count)]))) { $1 }
            } catch {
                return rows.map { ActionOutcome(folder: folder, path: $0.path.string, done: false, message: "the backend cannot be asked: \(error.message); try again") }
            }
        }
        // Folders first, shallow before deep, so each item's folder is there before it.
        let ordered = rows.sorted { a, b in
            if (a.kind == .folder) != (b.kind == .folder) { return a.kind == .folder }
            return (a.path.depth, a.path.string) < (b.path.depth, b.path.string)
        }
        for row in ordered {
            outcomes.append(await restoreHeld(row, server: current[RecordID(zone: configuration.zone, recordName: row.recordName)]))
        }
        _ = decideDeletionGate()
        logger.notice("held items brought back by a person", metadata: ["path": "\(configuration.root.path)", "items": "\(rows.count)"])
        return outcomes
    }

    /// Brings one item whose local deletion is held back as the backend has it.
    private func restoreHeld(_ row: IndexItem, server: DocSyncCore.Record?) async -> ActionOutcome {
        func outcome(_ done: Bool, _ message: String) -> ActionOutcome {
            ActionOutcome(folder: configuration.zone.name, path: row.path.string, done: done, message: message)
        }
        guard let server else {
            _ = try? writeIndex { db in try db.deleteItem(named: row.recordName) }
            return outcome(true, "deleted on another device meanwhile: nothing to bring back")
        }
        do throws(SyncError) {
            if (try? FileStat.of(absolute(server.path))) ?? nil != nil {
                // Something is at its path again: compare it, and let it take the item back.
                try reconcile([EngineInbox.Scope(path: server.path, subtree: false)])
                if let again = try readIndex({ db in try db.item(named: row.recordName) }), again.pending != .delete {
                    return outcome(true, "kept the item now at its path")
                }
            }
            if configuration.onDemand, server.type == .document, try placePlaceholder(server) {
                return outcome(true, "brought back as a placeholder")
            }
            try await place(server, replacing: nil, then: { _ in })
            return outcome(true, "brought back from the backend")
        } catch {
            return outcome(false, error.message)
        }
    }

    /// Writes the root's marker again, naming the instance the index recorded.
    private func remark() throws(SyncError) {
        let instance = safety.withLock { $0.markerInstance } ?? RecordID.newName()
        try RootMarker.write(instance: instance, zone: configuration.zone, into: configuration.root.path)
        updateSafety { $0.markerInstance = instance }
        _ = checkRoot()
    }
}
