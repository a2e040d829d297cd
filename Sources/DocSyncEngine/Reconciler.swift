import DocSyncCore
import Foundation
import GRDB

/// Comparing the folder on disk with the index: the walk observes, `LocalChangePlanner`
/// decides what was created, changed, renamed or deleted, and the changes are written to the
/// index (as pending changes) before anything else happens.
/// The local scan's job: the folder compared with the index — the walk observes (`compareWalk`),
/// `LocalChangePlanner` decides what was created, changed, renamed or deleted, and the
/// changes are written to the index (as pending changes) before anything else happens.
///
/// Owns nothing: the loop's state it is given holds the ignore rules (made again here when
/// `.docsyncignore` changes), the directories made for remote items and the last local
/// deletion seen.
struct Reconciler: EngineJob {
    let engine: FolderEngine
}

extension Reconciler {
    func reconcile(_ scopes: [EngineInbox.Scope], loop: inout EngineLoop) throws(SyncError) {
        if scopes.contains(where: { $0.path?.string.bytesEqual(IgnoreRules.fileName) ?? true }) {
            loop.scanner = engine.makeScanner()
        }
        let scanner = loop.scanner
        if scopes.contains(where: { $0.path == nil }), try readIndex({ db in try !db.hasRows("item") }) {
            try recordFirstScan(loop: &loop)  // the whole folder, which holds every other scope
            return
        }
        /// What the walk found, as the planner compares it (specials are reported, not kept).
        var found: [RelativePath: ItemFacts] = [:]
        /// Placeholders seen, by the path of the item each shows.
        var placeholdersSeen: [RelativePath: ItemFacts] = [:]
        var problems: [ItemProblem] = []
        var protected: [String] = []
        /// Each examined path, whether everything beneath it was walked, and for a walk, the
        /// index's rows there that the walk did not find unchanged (`compareWalk`).
        var examined: [Examined] = []
        /// What a walk of the whole folder found of interrupted downloads.
        var leftovers: [RelativePath]?
        func walk(_ path: RelativePath?) throws(SyncError) {
            let walk = try compareWalk(path, scanner: scanner) { entry in
                if let facts = ItemFacts(entry.stat) { found[entry.path] = facts }
            }
            problems += walk.scan.problems
            protected += walk.scan.unreadable
            for entry in walk.scan.placeholders { placeholdersSeen[entry.path] = ItemFacts(entry.stat) }
            if path == nil { leftovers = walk.scan.leftoverTemporaryFiles }
            examined.append(Examined(path: path, walked: true, rows: walk.rows))
        }
        for scope in scopes.sorted(by: { ($0.path?.string ?? "").bytesPrecede($1.path?.string ?? "") }) {
            guard var path = scope.path else {
                try walk(nil)
                continue
            }
            // A placeholder's name stands for its item: examine the item's path.
            if let item = Placeholder.itemPath(of: path) { path = item }
            if scanner.isIgnored(path) { continue }
            let stat: FileStat?
            do { stat = try fileSystem.status(scanner.absolute(path)) } catch {
                problems.append(ItemProblem(path: path.string, message: "cannot be examined: \(error)"))
                continue
            }
            let known = (try? index.readLatest { db in try db.itemFacts(at: path) }) ?? nil
            if let stat, stat.kind != .directory, let known, IndexItem.facts(known.stat, kind: known.kind, match: stat) {
                continue  // unchanged (often the daemon's own write coming back): nothing to do
            }
            if let stat, stat.kind == .directory, scope.subtree || known == nil || known?.kind != .folder {
                try walk(path)
                continue
            } else if let stat {
                if let facts = ItemFacts(stat) {
                    found[path] = facts
                } else {
                    problems.append(ItemProblem(path: path.string, message: FolderScanner.specialMessage))
                }
            } else if let placeholder = Placeholder.path(for: path), let shown = try? fileSystem.status(scanner.absolute(placeholder)),
                      shown.kind == .file {
                placeholdersSeen[path] = ItemFacts(shown)
            }
            examined.append(Examined(path: path, walked: stat == nil, rows: nil))
        }
        for problem in problems { engine.report(problem) }
        // A root unmounted or moved away while it was walked looks emptied: what was seen is
        // not recorded, and the loop finds the folder held (SPEC §4a).
        try ensureRootUnchanged(loop: &loop)
        if let leftovers { removeLeftoverTemporaryFiles(leftovers, loop: &loop) }
        let created = loop.createdDirectories
        // Observe, plan, record: the index is read, the planner decides (after the few files
        // that may be copies of vanished ones are read), and the changes go into the index
        // in one transaction. Only this loop writes the index, so nothing changes between.
        var scan = try readIndex { db in
            try localScan(found, examined: examined, unreadable: protected, created: created, scanner: scanner, db: db)
        }
        scan.foundPlaceholders = placeholdersSeen
        if scan.indexed.isEmpty, scan.pendingDeletions.isEmpty, found.count > Self.newItemsPerTransaction {
            // Only new items (a large tree copied in): nothing found can be matched with
            // anything indexed, so they are planned and recorded a batch at a time.
            scan.found = [:]
            try recordNewInBatches(found, scan: scan)
            return
        }
        let matching = LocalChangePlanner.Matching(scan)
        var contents: [RelativePath: ContentReader.Content] = [:]
        let toRead = matching.contentToRead(scan)
        let chunker = toRead.isEmpty ? AssetChunker() : try engine.assetChunker()
        for path in toRead {
            guard let content = try? ContentReader.read(scanner.absolute(path), chunker: chunker, in: fileSystem) else { continue }
            contents[path] = content
            scan.digests[path] = content.manifest.contentDigest
        }
        let changes = LocalChangePlanner.plan(scan, matching: matching)
        guard !changes.isEmpty else { return }
        var placeholders: [RelativePath] = []
        try writeIndex { db in placeholders = try record(changes, contents: contents, db: db) }
        // Placeholders a real file replaced go once the index says so.
        for path in placeholders {
            if let placeholder = Placeholder.path(for: path) { try? fileSystem.removeFile(scanner.absolute(placeholder)) }
        }
        if changes.contains(where: { if case .vanished(_, _, true) = $0 { return true } else { return false } }) {
            loop.lastLocalDeletion = environment.now()  // the brake's quiet period starts again
        }
    }

    /// Throws when the folder's root is no longer the indexed folder (unmounted or moved away
    /// while it was walked): what the walk saw must not be recorded.
    func ensureRootUnchanged(loop: inout EngineLoop) throws(SyncError) {
        guard engine.checkRoot(loop: &loop) == .proceed else {
            throw SyncError(.assetFileModified, "the folder's root changed while it was compared; looking at it again")
        }
    }

    /// Removes the temporary files of downloads a crash interrupted, which a full scan
    /// found, when it is the engine's first; later scans leave such files alone.
    func removeLeftoverTemporaryFiles(_ paths: [RelativePath], loop: inout EngineLoop) {
        guard loop.leftoversToRemove else { return }
        loop.leftoversToRemove = false
        for path in paths {
            try? fileSystem.removeFile(absolute(path))
            logger.info("removed an interrupted download's temporary file", metadata: ["path": "\(path)"])
        }
    }

    /// The planner's input: what the walk found, and the index's items in the examined scopes.
    private func localScan(
        _ found: [RelativePath: ItemFacts], examined: [Examined], unreadable: [String],
        created: Set<RelativePath>, scanner: FolderScanner, db: Database
    ) throws -> LocalScan {
        var indexed: [LocalScan.Indexed] = []
        var listed = Set<String>()
        for scope in examined {
            let rows = try scope.rows ?? IndexItem.Presence.live(db, at: scope.path, beneath: scope.walked)
            for row in rows where listed.insert(row.recordName).inserted {
                var item = LocalScan.Indexed(recordName: row.recordName, path: row.path, facts: row.facts, acknowledged: row.acknowledged,
                                             digest: row.digest, isPlaceholder: row.isPlaceholder)
                if found[row.path]?.type != row.kind {
                    // Only for what was not found: whether it is ignored, or shown by its placeholder.
                    item.ignored = scanner.isIgnored(row.path, isDirectory: row.kind == .folder)
                    if row.isPlaceholder, let placeholder = Placeholder.path(for: row.path) {
                        item.placeholderPresent = Placeholder.exists(at: scanner.absolute(placeholder), in: fileSystem)
                    }
                }
                indexed.append(item)
            }
        }
        var pendingDeletions: [RelativePath: [LocalScan.Indexed]] = [:]
        if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM item WHERE pending = 2)") ?? false {
            for scope in examined {
                for row in try IndexItem.Presence.pendingDeletions(db, at: scope.path, beneath: scope.walked) {
                    pendingDeletions[row.path, default: []].append(
                        LocalScan.Indexed(recordName: row.recordName, path: row.path, facts: row.facts, acknowledged: row.acknowledged))
                }
            }
        }
        return LocalScan(found: found, indexed: indexed, pendingDeletions: pendingDeletions, unreadable: unreadable, createdDirectories: created)
    }

    /// Records the planner's `changes` in the index. Returns the paths whose placeholder a
    /// real file replaced (the caller removes the placeholders). Deletions waiting to be sent
    /// beneath a folder that moved follow it, as they would had the folder moved on another
    /// device: a deleted item stays where its folder is.
    func record(_ changes: [LocalChange], contents: [RelativePath: ContentReader.Content], db: Database) throws -> [RelativePath] {
        var placeholders: [RelativePath] = []
        var folderMoves: [(from: RelativePath, to: RelativePath)] = []
        for change in changes {
            switch change {
            case .modified(let name, let facts, let contentChanged, let replacedPlaceholder):
                guard var row = try db.item(named: name) else { continue }
                if replacedPlaceholder {
                    madeLocal(&row)
                    placeholders.append(row.path)
                }
                row.take(FileStat(facts))
                if contentChanged { row.needsRead = true; row.chunksUploaded = false }
                row.markChanged()
                try row.update(db)
                engine.clearProblem(at: row.path.string)
            case .renamed(let name, let path, let facts, let contentChanged):
                guard var row = try db.item(named: name) else { continue }
                let oldPath = row.path
                row.path = path
                row.take(FileStat(facts))
                if contentChanged { row.needsRead = true; row.chunksUploaded = false }
                row.markChanged()
                try row.update(db)
                logger.debug("renamed", metadata: ["path": "\(path)", "from": "\(oldPath)", "record": "\(row.recordName)"])
                if row.kind == .folder { folderMoves.append((oldPath, path)) }
                try db.refreshConflictFlags(around: [oldPath, path])
            case .renamedByContent(let name, let path, let replacedPlaceholder):
                guard var row = try db.item(named: name), let content = contents[path] else { continue }
                if replacedPlaceholder {
                    madeLocal(&row)
                    placeholders.append(row.path)
                }
                let oldPath = row.path
                row.path = path
                row.take(content.stat)
                row.needsRead = false
                row.markChanged()
                try row.update(db)
                try db.setChunkLocations(of: row.recordName, chunks: content.manifest.chunks)
                try db.refreshConflictFlags(around: [oldPath, path])
            case .revived(let name, let facts):
                // Back where its deletion waits to be sent (put back by hand, or written anew
                // by an editor): the same item, changed, not a new one.
                guard var row = try db.item(named: name) else { continue }
                row.take(FileStat(facts))
                if facts.type != .folder { row.needsRead = true; row.chunksUploaded = false }
                row.markChanged()
                try row.update(db)
                try db.refreshConflictFlags(around: [row.path])
            case .created(let path, let facts):
                var row = IndexItem(recordName: environment.newRecordName(), path: path, kind: facts.type, stat: FileStat(facts))
                if facts.type == .folder { row.needsRead = false }
                try row.insert(db)
                try db.refreshConflictFlags(around: [path])
            case .vanished(let name, let path, let acknowledged):
                if acknowledged {
                    try db.execute(sql: "UPDATE item SET pending = 2, revision = revision + 1 WHERE recordName = ?", arguments: [name])
                } else {
                    try db.deleteItem(named: name)
                }
                engine.clearProblem(at: path.string)
                try db.refreshConflictFlags(around: [path])
            }
        }
        for move in folderMoves { try db.movePaths(beneath: move.from, to: move.to, pendingDeletionsOnly: true) }
        return placeholders
    }

    /// A real file took the place of an item shown as a placeholder: the item is local again
    /// (its new content is read and sent).
    private func madeLocal(_ row: inout IndexItem) {
        row.status.downloadingStatus = "current"
        row.status.percentDownloaded = 100
        row.needsRead = true
    }
}
