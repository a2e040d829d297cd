import DocSyncCore
import DocSyncStorage
import Foundation
import GRDB

/// The fetch job: remote changes fetched page by page (the next page while one is
/// applied) and applied — new records plainly new here in bulk (`applyNewInBulk`, their
/// documents written ahead: `prepareNewDocuments`), every other change through the engine's
/// one line (observe → plan → execute: `FolderEngine.applyRemoteChange`) — the change token
/// stored with the last item of each page; after a complete fetch, what it did not bring is
/// settled (`settleUnseen`).
///
/// Owns nothing between fetches: the token and what is settled live in the index, what a
/// fetch leaves for the loop (directories made, documents written ahead, whether it joins)
/// in the loop's state it is given.
struct Fetcher: EngineJob {
    let engine: FolderEngine
}

extension Fetcher {
    /// Fetches and applies every change after the stored token, a page at a time.
    ///
    /// While a page is applied, the next one is already being fetched (not in a serial
    /// environment): fetching only reads the backend, and pages are still applied one after
    /// the other, in order.
    func fetchAndApply(loop: inout EngineLoop) async throws(SyncError) {
        var token = engine.loadToken()
        let fromScratch = token == nil
        if fromScratch {
            // Joining: a first fetch into an index that never had anything acknowledged. It
            // stays a join until a fetch completes (`settleUnseen`), should this one be cut short.
            let anythingAcknowledged = try readIndex { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM item WHERE acked IS NOT NULL)") ?? false }
            if !anythingAcknowledged { try beginJoining() }
            try beginRefetch()
        }
        loop.joining = try joinUnfinished()
        defer { loop.joining = false }
        var next: Task<Result<ChangeSet, SyncError>, Never>?
        defer { next?.cancel() }
        while true {
            let page: ChangeSet
            if let next { page = try await next.value.get() } else { page = try await fetchPage(after: token) }
            next = page.moreComing && !environment.serial ? prefetch(after: page.token) : nil
            engine.updateLive {
                $0.pendingDownloads = page.changed.count
                $0.pendingDownloadBytes = page.changed.reduce(0) { $0 + $1.size }
            }
            try confirmSeen(page.changed)
            var tokenStored = false
            if configuration.direction != .sendOnly {
                tokenStored = try await apply(page, loop: &loop)
            }
            if !tokenStored { try engine.storeToken(page.token) }
            token = page.token
            engine.updateLive { $0.pendingDownloads = 0; $0.pendingDownloadBytes = 0 }
            if !page.moreComing { break }
        }
        try await settleUnseen(loop: &loop)
        try sendStrandedItems()
        try await engine.placeShadowedFolders(loop: &loop)
        claimCreatedDirectories(loop: &loop)
    }

    /// Fetches the page after `token` on a task of its own.
    private func prefetch(after token: ChangeToken) -> Task<Result<ChangeSet, SyncError>, Never> {
        Task { [self] in
            do throws(SyncError) {
                return .success(try await fetchPage(after: token))
            } catch {
                return .failure(error)
            }
        }
    }

    /// One page of the zone's changes after `token`.
    private func fetchPage(after token: ChangeToken?) async throws(SyncError) -> ChangeSet {
        try await backend.fetchChanges(in: configuration.zone, since: token, limit: StorageLimits.maximumPageSize)
    }

    /// Applies one page; returns true when the page's token was stored with its items.
    func apply(_ page: ChangeSet, loop: inout EngineLoop) async throws(SyncError) -> Bool {
        for refusal in page.refused {
            // Never applied: its path may lead out of the folder. The rest of the page stands.
            engine.report(ItemProblem(path: refusal.path.isEmpty ? "record \(refusal.recordName)" : refusal.path,
                               message: "refused a change from the server: \(refusal.reason); nothing was written"))
        }
        let deletedNames = page.deleted.map(\.recordName)
        let ownSaves = try engine.settleUncertainSaves(changed: page.changed, deleted: deletedNames,
                                                deletedVersions: try await engine.lastVersionsOfUncertainlySaved(deleted: deletedNames))
        let (known, echoes) = try lookUp(page.changed)
        // Folders first, shallow before deep, so parents exist before their children.
        let ordered = RemotePagePlanner.order(page.changed, skipping: echoes.union(ownSaves))
        try markOutdated(ordered.filter { known.contains($0.id.recordName) })
        await prepareNewDocuments(ordered, known: known, loop: &loop)
        defer { engine.executor.discardPreparedFiles(loop: &loop) }
        let bulk = try applyNewInBulk(ordered, token: page.token, complete: page.deleted.isEmpty, loop: &loop)
        if bulk.tokenStored { return true }
        let deletedInPage = Set(page.deleted.map(\.recordName))
        for record in ordered where !bulk.applied.contains(record.id.recordName) {
            do {
                try await engine.applyRemoteChange(.saved(record), deletedInFetch: deletedInPage, loop: &loop)
                engine.clearProblem(at: record.path.string)
            } catch where error.code == .invalidArguments {
                // This record cannot be applied here (a path through a file, an unwritable
                // place): report it and go on; it is tried again when it changes.
                engine.report(ItemProblem(path: record.path.string, message: "cannot apply the change from \(record.lastModifiedBy): \(error.message)"))
            }
            engine.updateLive { $0.pendingDownloads -= 1; $0.pendingDownloadBytes -= record.size }
        }
        engine.updateLive { $0.pendingDownloads = 0; $0.pendingDownloadBytes = 0 }
        let names = page.deleted.map(\.recordName)
        try engine.forgetShadowedFolders(names)
        let deletedHere = try readIndex { db in try names.compactMap { name in try db.item(named: name).map { (recordName: name, path: $0.path) } } }
        for name in RemotePagePlanner.deletionOrder(deletedHere) { try await engine.applyRemoteDeletion(name, loop: &loop) }
        return false
    }

    /// Local copies of documents whose content changed on the server are `downloaded` (a
    /// local copy, not the latest) until the change is applied, which makes them `current`.
    private func markOutdated(_ records: [DocSyncCore.Record]) throws(SyncError) {
        let changed = records.filter { $0.type == .document && $0.contentDigest != nil }
        guard !changed.isEmpty else { return }
        try writeIndex { db in
            let statement = try db.cachedStatement(sql: """
                UPDATE item SET downloadingStatus = 'downloaded'
                WHERE recordName = ? AND downloadingStatus = 'current' AND (digest IS NULL OR digest != ?)
                """)
            for record in changed { try statement.execute(arguments: [record.id.recordName, record.contentDigest!.hex]) }
        }
    }

    /// One look at the index for a page: the names of `records` it has a row for, and of
    /// those it holds as acknowledged already, byte for byte (most often this device's own
    /// saves coming back: nothing to apply).
    private func lookUp(_ records: [DocSyncCore.Record]) throws(SyncError) -> (known: Set<String>, echoes: Set<String>) {
        try readIndex { db in
            let statement = try db.cachedStatement(sql: "SELECT acked FROM item WHERE recordName = ?")
            var known = Set<String>(), echoes = Set<String>()
            for record in records {
                guard let row = try Row.fetchOne(statement, arguments: [record.id.recordName]) else { continue }
                known.insert(record.id.recordName)
                if let acked = row[0] as Data?, record.isEncoded(as: acked) { echoes.insert(record.id.recordName) }
            }
            return (known, echoes)
        }
    }

    /// Items a remote folder move carried along whose own records stayed where they were
    /// once the whole fetch is applied (put in the folder on another device after it moved,
    /// or not yet moved by a sender whose move spans several batches): their new place here
    /// is sent, so every device ends with them in the moved folder — a rename both sides
    /// agree on is no conflict.
    private func sendStrandedItems() throws(SyncError) {
        guard try readIndex({ db in try db.hasRows("carriedAlong") }) else { return }
        try writeIndex { db in
            let names = try String.fetchAll(db, sql: "SELECT recordName FROM carriedAlong")
            try db.execute(sql: "DELETE FROM carriedAlong")
            var rows: [String: IndexItem] = [:]
            for name in names { rows[name] = try db.item(named: name) }
            let carried = names.compactMap { name in
                rows[name].map { StrandedItemsPlanner.Item(recordName: name, change: $0.pending.change, path: $0.path, acknowledgedPath: $0.acked?.path) }
            }
            for name in StrandedItemsPlanner.plan(carried) {
                guard var row = rows[name] else { continue }
                logger.debug("a folder's move carried an item whose record stayed; sending its new place",
                             metadata: ["path": "\(row.path)", "from": "\(row.acked?.path.string ?? "")", "record": "\(name)"])
                row.markChanged()
                try row.update(db)
                try engine.noteMovedByEngine(row, in: db)
            }
        }
    }

    /// Directories made for remote files whose folder record never came become local folders.
    private func claimCreatedDirectories(loop: inout EngineLoop) {
        let created = loop.createdDirectories
        loop.createdDirectories.removeAll()
        let unclaimed = created.filter { path in ((try? index.readLatest { db in try db.item(at: path) }) ?? nil) == nil }
        if !unclaimed.isEmpty {
            engine.inbox.withLock { inbox in for path in unclaimed { inbox.scopes.insert(.init(path: path, subtree: false)) } }
        }
    }
}
