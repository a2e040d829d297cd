import DocSyncCore
import DocSyncStorage
import Foundation
import GRDB

/// Recently Deleted (SPEC §4a) from this folder's side: listing what the backend keeps of
/// the zone's deleted items, purging it, and recovering items as records that reach every
/// device. Runs beside the loop: these calls only read the index and call the backend; a
/// recovered item arrives here, as everywhere, through the next fetch.
extension FolderEngine {
    /// How far apart in time a folder's deletion and its contents' may be for them to count
    /// as deleted with it (one `rm -rf`, or one confirmed brake).
    static let deletedTogetherWindow: TimeInterval = 600

    /// The zone's Recently Deleted items at or beneath `paths` (none: all), matching
    /// `predicate`, deleted at or after `since`; newest deletion first.
    public func deletedEntries(paths: [RelativePath], predicate: MetadataPredicate?, since: Timestamp?) async throws(SyncError) -> [DeletedEntry] {
        let all = try await backend.listDeleted(in: configuration.zone, since: since)
        return select(all, paths: paths, predicate: predicate).map(entry)
    }

    /// Empties Recently Deleted of the items the selection picks (each its own outcome).
    public func purgeDeleted(paths: [RelativePath], predicate: MetadataPredicate?, since: Timestamp?) async throws(SyncError) -> [ActionOutcome] {
        let all = try await backend.listDeleted(in: configuration.zone, since: since)
        let chosen = select(all, paths: paths, predicate: predicate)
        guard !chosen.isEmpty else { return [] }
        let ids = chosen.map(\.record.id)
        for start in stride(from: 0, to: ids.count, by: RecordBatch.maximumItems) {
            _ = try await backend.purgeDeleted(in: configuration.zone, ids: Array(ids[start..<min(start + RecordBatch.maximumItems, ids.count)]))
        }
        logger.notice("purged from Recently Deleted", metadata: ["items": "\(chosen.count)"])
        return chosen.map { ActionOutcome(folder: configuration.zone.name, path: $0.record.path.string, done: true, message: "purged") }
    }

    /// What to tell a person about each of `paths` (named for `recover`) that has nothing in
    /// Recently Deleted: no such item, an item purged since it was deleted, or one that is
    /// not deleted at all (`RecoverCheck`). Empty when every path names something recoverable.
    /// Reads Recently Deleted and the index; changes nothing.
    public func unrecoverable(paths: [RelativePath]) async throws(SyncError) -> [String] {
        guard !paths.isEmpty else { return [] }
        let deleted = try await backend.listDeleted(in: configuration.zone, since: nil).map(\.record.path)
        var messages: [String] = []
        for path in paths {
            let inRecentlyDeleted = deleted.contains { $0.isSameOrBeneath(path) }
            let facts = inRecentlyDeleted ? RecoverCheck.Facts(inRecentlyDeleted: true) : try readIndex { db in
                let beneath: StatementArguments = [path.string, path.string + "/", path.string + "0"]  // "0" follows "/"
                return RecoverCheck.Facts(
                    inRecentlyDeleted: false,
                    deletedCopyKeptHere: try Bool.fetchOne(db, sql: """
                        SELECT EXISTS (SELECT 1 FROM version WHERE reason = 'deleted' AND (path = ? OR (path >= ? AND path < ?)))
                        """, arguments: beneath) ?? false,
                    livesHere: try db.item(at: path).map { $0.pending != .delete } ?? false)
            }
            if let message = RecoverCheck.verdict(facts).message(for: configuration.zone.name + "/" + path.string) {
                messages.append(message)
            }
        }
        return messages
    }

    /// Brings back the items the selection picks — with the folders they were in, when
    /// those were deleted too, and a folder with what was deleted with it — as records that
    /// reach every device: at their last path when it is free, under a conflict name
    /// otherwise (SPEC §4a). Each item gets its own outcome.
    public func recoverDeleted(paths: [RelativePath], predicate: MetadataPredicate?, since: Timestamp?) async throws(SyncError) -> [ActionOutcome] {
        let all = try await backend.listDeleted(in: configuration.zone, since: nil)
        let chosen = expand(select(all, paths: paths, predicate: predicate, since: since), in: all)
        guard !chosen.isEmpty else { return [] }
        let placed = destinations(for: chosen)
        let outcomes = try await showingActivity(FolderActivity.recovering, total: placed.count) { (progress) throws(SyncError) in
            try await recover(placed, progress: progress)
        }
        logger.notice("recovered from Recently Deleted", metadata: ["items": "\(outcomes.filter(\.done).count)"])
        noteRemoteChange()
        return outcomes
    }

    /// Recovers `placed` in batches, reporting how many are done after each.
    private func recover(_ placed: [(deleted: DeletedRecord, path: RelativePath)], progress: (Int) -> Void) async throws(SyncError) -> [ActionOutcome] {
        var outcomes: [ActionOutcome] = []
        for start in stride(from: 0, to: placed.count, by: RecordBatch.maximumItems) {
            let slice = Array(placed[start..<min(start + RecordBatch.maximumItems, placed.count)])
            let result = try await backend.recoverDeleted(slice.map { item in
                DeletedRecordRecovery(id: item.deleted.record.id, path: item.path == item.deleted.record.path ? nil : item.path, device: configuration.device)
            }, in: configuration.zone)
            for item in slice {
                let id = item.deleted.record.id
                let renamed = item.path == item.deleted.record.path ? "" : " as \(item.path.name) (its path is taken)"
                let outcome: ActionOutcome = if result.saved[id] != nil {
                    ActionOutcome(folder: configuration.zone.name, path: item.path.string, done: true, message: "recovered\(renamed)")
                } else if let error = result.failed[id], error.code == .serverRecordChanged {
                    ActionOutcome(folder: configuration.zone.name, path: item.path.string, done: true, message: "back already (another device recovered it)")
                } else if let error = result.failed[id], error.code == .unknownItem {
                    ActionOutcome(folder: configuration.zone.name, path: item.path.string, done: false, message: "no longer in Recently Deleted (purged or past its retention)")
                } else {
                    ActionOutcome(folder: configuration.zone.name, path: item.path.string, done: false, message: result.failed[id]?.message ?? "not recovered")
                }
                outcomes.append(outcome)
            }
            progress(outcomes.count)
        }
        return outcomes
    }

    // MARK: choosing

    private func select(_ all: [DeletedRecord], paths: [RelativePath], predicate: MetadataPredicate?, since: Timestamp? = nil) -> [DeletedRecord] {
        let sharing = self.sharing
        return all.filter { deleted in
            if let since, deleted.deletedAt < since { return false }
            if !paths.isEmpty, !paths.contains(where: { deleted.record.path.isSameOrBeneath($0) }) { return false }
            if let predicate, !predicate.evaluate(DeletedItem(deleted: deleted, sharing: sharing)) { return false }
            return true
        }
    }

    /// `chosen`, one item per path (the latest deletion), with what each folder among them
    /// had deleted with it, and the deleted folders they were in (unless a folder lives at
    /// that path again): folders first, shallow before deep.
    private func expand(_ chosen: [DeletedRecord], in all: [DeletedRecord]) -> [DeletedRecord] {
        var byName: [String: DeletedRecord] = [:]
        var latestAt: [RelativePath: DeletedRecord] = [:]
        for deleted in all where latestAt[deleted.record.path].map({ $0.deletedAt < deleted.deletedAt }) ?? true {
            latestAt[deleted.record.path] = deleted
        }
        func add(_ deleted: DeletedRecord) { byName[deleted.record.id.recordName] = deleted }
        var latestChosen: [RelativePath: DeletedRecord] = [:]
        for deleted in chosen where latestChosen[deleted.record.path].map({ $0.deletedAt < deleted.deletedAt }) ?? true {
            latestChosen[deleted.record.path] = deleted
        }
        for deleted in latestChosen.values {
            add(deleted)
            guard deleted.record.type == .folder else { continue }
            for inside in all where inside.record.path.isBeneath(deleted.record.path)
                && abs(inside.deletedAt.date.timeIntervalSince(deleted.deletedAt.date)) <= FolderEngine.deletedTogetherWindow
                && latestAt[inside.record.path] == inside {
                add(inside)
            }
        }
        for deleted in Array(byName.values) {
            var parent = deleted.record.path.parent
            while let folder = parent, !livesHere(folder), let gone = latestAt[folder], gone.record.type == .folder {
                add(gone)
                parent = folder.parent
            }
        }
        return byName.values.sorted { a, b in
            if (a.record.type == .folder) != (b.record.type == .folder) { return a.record.type == .folder }
            if a.record.path.depth != b.record.path.depth { return a.record.path.depth < b.record.path.depth }
            return a.record.path < b.record.path
        }
    }

    /// Where each item comes back: its path, moved along with a folder recovered under
    /// another name, or a conflict name when something else is there.
    private func destinations(for ordered: [DeletedRecord]) -> [(deleted: DeletedRecord, path: RelativePath)] {
        var moved: [RelativePath: RelativePath] = [:]
        var claimed = Set<RelativePath>()
        var placed: [(deleted: DeletedRecord, path: RelativePath)] = []
        for deleted in ordered {
            var path = deleted.record.path
            var ancestor = path.parent
            while let folder = ancestor {
                if let target = moved[folder] {
                    path = RelativePath(target.string + "/" + String(decoding: path.string.utf8.dropFirst(folder.string.utf8.count + 1), as: UTF8.self))
                    break
                }
                ancestor = folder.parent
            }
            let isTaken = { [self] (candidate: RelativePath) in claimed.contains(candidate) || isTakenHere(candidate) }
            if isTaken(path) {
                let aside = ConflictName.copyPath(for: path, device: copyLabel, time: deleted.deletedAt, isTaken: isTaken)
                if deleted.record.type == .folder { moved[deleted.record.path] = aside }
                path = aside
            } else if path != deleted.record.path, deleted.record.type == .folder {
                moved[deleted.record.path] = path
            }
            claimed.insert(path)
            placed.append((deleted, path))
        }
        return placed
    }

    /// A live item of this device's index at `path` (a folder there again, say).
    private func livesHere(_ path: RelativePath) -> Bool {
        ((try? index.readLatest { db in try db.item(at: path) }) ?? nil) != nil
    }

    /// Something at `path` here: a live item of the index, or anything on disk.
    private func isTakenHere(_ path: RelativePath) -> Bool {
        livesHere(path) || ((try? fileSystem.status(absolute(path))) ?? nil) != nil
    }

    private func entry(_ deleted: DeletedRecord) -> DeletedEntry {
        DeletedEntry(folder: configuration.zone.name, path: deleted.record.path.string, kind: deleted.record.type.rawValue,
                     size: deleted.record.size, modified: deleted.record.modified.date, deletedAt: deleted.deletedAt.date,
                     deletedBy: deleted.deletedBy, recordName: deleted.record.id.recordName)
    }
}
