import DocSyncCore
import Foundation
import GRDB

/// Comparing the folder on disk with the index: what was created, changed, renamed or
/// deleted, written to the index (as pending changes) before anything else happens.
extension FolderEngine {
    func reconcile(_ scopes: [EngineInbox.Scope]) throws(SyncError) {
        if scopes.contains(where: { $0.path?.string == IgnoreRules.fileName || $0.path == nil }) {
            let rules = FolderEngine.loadIgnores(configuration.root, fileSystem)
            scanner.withLock { $0 = FolderScanner(root: configuration.root, ignores: rules, fileSystem: fileSystem) }
        }
        let scanner = self.scanner.withLock { $0 }
        var observed: [RelativePath: FileStat] = [:]
        var problems: [ItemProblem] = []
        var protected: [String] = []
        /// Each examined path, and whether everything beneath it was walked.
        var examined: [(path: RelativePath?, walked: Bool)] = []
        for scope in scopes.sorted(by: { ($0.path?.string ?? "") < ($1.path?.string ?? "") }) {
            guard var path = scope.path else {
                let result = scanner.scan(nil)
                for entry in result.entries { observed[entry.path] = entry.stat }
                problems += result.problems
                protected += result.unreadable
                examined.append((nil, true))
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
                let result = scanner.scan(path)
                for entry in result.entries { observed[entry.path] = entry.stat }
                problems += result.problems
                protected += result.unreadable
                examined.append((path, true))
                continue
            } else if let stat {
                if stat.kind == .special {
                    problems.append(ItemProblem(path: path.string, message: FolderScanner.specialMessage))
                } else {
                    observed[path] = stat
                }
            }
            examined.append((path, stat == nil))
        }
        for problem in problems { report(problem) }
        // A root unmounted or moved away while it was walked looks emptied: what was seen is
        // not recorded, and the loop finds the folder held (SPEC §4a).
        guard checkRoot() == .proceed else {
            throw SyncError(.assetFileModified, "the folder's root changed while it was compared; looking at it again")
        }
        let created = createdDirectories.withLock { $0 }
        do {
            try index.write { db in
                try applyObservations(observed, examined: examined, protected: protected, created: created, scanner: scanner, db: db)
            }
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.internalError, "could not update the index at \(index.url.path): \(error)")
        }
    }

    private func applyObservations(
        _ observed: [RelativePath: FileStat], examined: [(path: RelativePath?, walked: Bool)], protected: [String],
        created: Set<RelativePath>, scanner: FolderScanner, db: Database
    ) throws {
        // Rows the examined scopes cover: those not observed are gone (or renamed). Only
        // what tells that is read for each; the whole row only for those that vanished.
        var expected: [String: IndexItem.Presence] = [:]
        for (path, walked) in examined {
            for row in try IndexItem.Presence.live(db, at: path, beneath: walked) { expected[row.recordName] = row }
        }
        // Every observed path lies in an examined scope: its live row, if any, is expected.
        var expectedAt: [RelativePath: IndexItem.Presence] = [:]
        for row in expected.values { expectedAt[row.path] = row }
        var vanished: [String: IndexItem] = [:]
        for row in expected.values {
            if let stat = observed[row.path], RecordType(stat.kind) == row.kind { continue }
            if protected.contains(where: { $0.isEmpty || row.path.string == $0 || row.path.string.hasPrefix($0 + "/") }) { continue }
            if scanner.isIgnored(row.path, isDirectory: row.kind == .folder) { continue }
            // An item shown as a placeholder is there as long as its placeholder is.
            if row.isPlaceholder, let placeholder = Placeholder.path(for: row.path), Placeholder.exists(at: scanner.absolute(placeholder), in: fileSystem) {
                continue
            }
            if let full = try db.item(named: row.recordName) { vanished[row.recordName] = full }
        }
        var byInode: [UInt64: [String]] = [:]
        for row in vanished.values { byInode[row.inode, default: []].append(row.recordName) }

        var fresh: [(RelativePath, FileStat)] = []
        for (path, stat) in observed.sorted(by: { $0.key < $1.key }) {
            guard let type = RecordType(stat.kind) else { continue }
            let facts = expectedAt[path]
            if let facts, facts.kind == type, IndexItem.facts(facts.stat, kind: facts.kind, match: stat) {
                continue  // unchanged; (a renamed-away row at this path would not match its inode)
            }
            // No facts: no live row at this path (both read `path = ? AND pending != 2`).
            if facts != nil, var row = try db.item(at: path), row.kind == type, vanished[row.recordName] == nil {
                if row.matches(stat) { continue }
                let contentChanged = row.kind != .folder && !(row.size == stat.size && row.modified == stat.modified && row.inode == stat.inode)
                if row.isPlaceholder { replacedPlaceholder(&row, scanner: scanner) }
                row.take(stat)
                if contentChanged { row.needsRead = true; row.chunksUploaded = false }
                markChanged(&row)
                try row.update(db)
                clearProblem(at: path.string)
                continue
            }
            // A live row of another kind at this path was replaced: it is in `vanished`.
            fresh.append((path, stat))
        }
        // Renames: the same inode under a new path.
        var unmatched: [(RelativePath, FileStat)] = []
        for (path, stat) in fresh {
            let candidates = byInode[stat.inode] ?? []
            if let name = candidates.first(where: { vanished[$0].map { RecordType(stat.kind) == $0.kind } ?? false }),
               var row = vanished.removeValue(forKey: name) {
                byInode[stat.inode]?.removeAll { $0 == name }
                let contentChanged = row.kind != .folder && !(row.size == stat.size && row.modified == stat.modified)
                let oldPath = row.path
                row.path = path
                row.take(stat)
                if contentChanged { row.needsRead = true; row.chunksUploaded = false }
                markChanged(&row)
                try row.update(db)
                logger.debug("renamed", metadata: ["path": "\(path)", "from": "\(oldPath)", "record": "\(row.recordName)"])
                try refreshConflictFlags(db, around: [oldPath, path])
                continue
            }
            unmatched.append((path, stat))
        }
        // Renames a new inode hides (copied elsewhere, then the original deleted): same content digest.
        let vanishedDocuments = vanished.values.filter { $0.kind == .document && $0.digest != nil }
        // Looked for only when some deletion waits (rarely: a first scan has thousands of new paths).
        let deletionsWait = unmatched.isEmpty ? false : try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM item WHERE pending = 2)") ?? false
        for (path, stat) in unmatched {
            guard let type = RecordType(stat.kind) else { continue }
            if type == .folder, created.contains(path) { continue }
            if deletionsWait, var row = try db.itemPendingDeletion(at: path, kind: type) {
                // Back where its deletion waits to be sent (put back by hand, or written anew
                // by an editor): the same item, changed, not a new one.
                row.take(stat)
                if type != .folder { row.needsRead = true; row.chunksUploaded = false }
                markChanged(&row)
                try row.update(db)
                try refreshConflictFlags(db, around: [path])
                continue
            }
            if type == .document, vanishedDocuments.contains(where: { $0.size == stat.size && vanished[$0.recordName] != nil }),
               let content = try? ContentReader.read(scanner.absolute(path), in: fileSystem),
               let match = vanished.values.first(where: { $0.kind == .document && $0.digest == content.manifest.contentDigest }) {
                var row = vanished.removeValue(forKey: match.recordName)!
                if row.isPlaceholder { replacedPlaceholder(&row, scanner: scanner) }
                let oldPath = row.path
                row.path = path
                row.take(content.stat)
                row.needsRead = false
                markChanged(&row)
                try row.update(db)
                try db.setChunkLocations(of: row.recordName, chunks: content.manifest.chunks)
                try refreshConflictFlags(db, around: [oldPath, path])
                continue
            }
            var row = IndexItem(recordName: environment.newRecordName(), path: path, kind: type, stat: stat)
            if type == .folder { row.needsRead = false }
            try row.insert(db)
            try refreshConflictFlags(db, around: [path])
        }
        // What is left is gone.
        if vanished.values.contains(where: { $0.acked != nil }) { noteLocalDeletions() }
        for var row in vanished.values {
            if row.acked == nil {
                try db.deleteItem(named: row.recordName)
            } else {
                row.pending = .delete
                row.revision += 1
                try row.update(db)
            }
            clearProblem(at: row.path.string)
            try refreshConflictFlags(db, around: [row.path])
        }
    }

    /// A real file took the place of an item shown as a placeholder: the item is local again
    /// (its new content is read and sent) and the placeholder goes.
    private func replacedPlaceholder(_ row: inout IndexItem, scanner: FolderScanner) {
        if let placeholder = Placeholder.path(for: row.path) { try? fileSystem.removeFile(scanner.absolute(placeholder)) }
        row.status.downloadingStatus = "current"
        row.status.percentDownloaded = 100
        row.needsRead = true
    }

    func markChanged(_ row: inout IndexItem) {
        row.pending = .save
        row.revision += 1
        row.status.uploadingError = nil
        row.status.isUploaded = false
    }

    /// Keeps `hasUnresolvedConflicts` true exactly on items with a conflict copy beside them,
    /// for the originals of the conflict copies among `paths` (appearing, moving, leaving).
    func refreshConflictFlags(_ db: Database, around paths: [RelativePath]) throws {
        for path in paths {
            guard let name = ConflictName.originalName(of: path.name),
                  let original = try? (path.parent.map { $0.string + "/" + name } ?? name).asRelativePath(),
                  var row = try db.item(at: original) else { continue }
            let stem = ConflictName.split(name).stem
            let pattern = stem.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                .replacingOccurrences(of: "_", with: "\\_") + " (conflict %"
            let siblings = try String.fetchAll(db, sql: "SELECT path FROM item WHERE pending != 2 AND name LIKE ? ESCAPE '\\'", arguments: [pattern])
            let hasCopy = siblings.contains { candidate in
                let candidatePath = RelativePath(candidate)
                return candidatePath.parent == original.parent && ConflictName.originalName(of: candidatePath.name) == original.name
            }
            if row.status.hasUnresolvedConflicts != hasCopy {
                row.status.hasUnresolvedConflicts = hasCopy
                try row.update(db)
            }
        }
    }
}

extension IndexItem {
    /// What reconciling needs to know of a live row to tell whether its item is still on
    /// disk and unchanged: read without decoding the row's records.
    struct Presence {
        var recordName: String
        var path: RelativePath
        var kind: RecordType
        var isPlaceholder: Bool
        /// The on-disk facts the row holds (`FileStat(indexed:_:from:)`, as `Database.itemFacts`).
        var stat: FileStat

        /// The live rows (not pending deletion) at `path` and, when `beneath`, everything
        /// under it (`nil`: the root, so every live row when `beneath`, none otherwise).
        static func live(_ db: Database, at path: RelativePath?, beneath: Bool) throws -> [Presence] {
            let columns = "SELECT recordName, path, kind, downloadingStatus, size, mtime, inode, mode FROM item"
            let rows: [Row]
            switch (path, beneath) {
            case (nil, false):
                return []
            case (nil, true):
                rows = try Row.fetchAll(db.cachedStatement(sql: "\(columns) WHERE pending != 2"))
            case (let path?, false):
                rows = try Row.fetchAll(db.cachedStatement(sql: "\(columns) WHERE path = ? AND pending != 2"), arguments: [path.string])
            case (let path?, true):
                rows = try Row.fetchAll(db.cachedStatement(sql: "\(columns) WHERE (path = ? OR (path >= ? AND path < ?)) AND pending != 2"),
                                        arguments: [path.string, path.string + "/", path.string + "0"])  // "0" follows "/" in byte order
            }
            return rows.compactMap { row in
                guard let kind = RecordType(rawValue: row[2]) else { return nil }
                return Presence(recordName: row[0], path: RelativePath(row[1] as String), kind: kind,
                                isPlaceholder: (row[3] as String) == Placeholder.notDownloaded, stat: FileStat(indexed: kind, row, from: 4))
            }
        }
    }
}
