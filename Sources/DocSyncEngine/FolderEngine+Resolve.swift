import DocSyncCore
import Foundation
import GRDB

/// Settling conflicts as a person chooses (`docs-status resolve`, SPEC §4): which file holds
/// which side is `ConflictResolution`'s rule; here the choice is carried out. The kept
/// content ends at the original's path (the item keeps its identity), the other goes to the
/// version store (reason `conflict`, filed under the original, so `docs-status versions
/// ORIGINAL` lists it and `restore` brings it back), and the copy's name goes — or, keeping
/// both, the copy is renamed to an ordinary name. What changes is recorded as ordinary local
/// changes (the original edited, the copy deleted or renamed), which the engine sends: the
/// other devices end with the same tree. Each conflict settled is logged (`logConflict`).
extension FolderEngine {
    /// The conflicts `docs-status resolve --all [--where PREDICATE]` takes: every item with a
    /// conflict copy beside it; with `predicate`, those of them and of their copies that it
    /// matches. Reads the index from any task.
    public func conflictTargets(matching predicate: MetadataPredicate?) throws -> [RelativePath] {
        let conflicts = try conflictItems()
        let originals = Set(conflicts.filter(\.hasUnresolvedConflicts).map { RelativePath($0.path) })
        guard let predicate else { return originals.sorted() }
        let matching = Set(try items(matching: predicate).map { RelativePath($0.path) })
        return conflicts.map { RelativePath($0.path) }.filter { path in
            guard matching.contains(path) else { return false }
            if originals.contains(path) { return true }
            // A copy, when its original is in conflict (a copy left alone is no conflict).
            guard let name = ConflictName.originalName(of: path.name) else { return false }
            return originals.contains(path.parent.map { RelativePath($0.string + "/" + name) } ?? RelativePath(name))
        }
    }

    /// Settles the conflicts `paths` name (originals: with every copy beside them; copies:
    /// that one), keeping `keep`; one outcome per path. A copy whose original is also named
    /// is settled with it. Runs on the loop (`EngineAction.resolve`).
    func resolve(_ paths: [RelativePath], keep: ConflictKeep, loop: inout EngineLoop) -> [ActionOutcome] {
        let named = Set(paths)
        // Copies whose original is named too, and in conflict: settled with it (decided
        // before anything changes, whichever comes first).
        let covered = Dictionary(paths.compactMap { path -> (RelativePath, RelativePath)? in
            guard let name = ConflictName.originalName(of: path.name) else { return nil }
            let original = path.parent.map { RelativePath($0.string + "/" + name) } ?? RelativePath(name)
            guard named.contains(original), (try? readIndex({ db in try db.item(at: original)?.status.hasUnresolvedConflicts })) == true else { return nil }
            return (path, original)
        }, uniquingKeysWith: { first, _ in first })
        var outcomes: [ActionOutcome] = []
        for path in paths {
            if let original = covered[path] {
                outcomes.append(ActionOutcome(folder: configuration.zone.name, path: path.string, done: true,
                                              message: "settled with \(original.name)"))
            } else {
                outcomes.append(resolve(path, keep: keep, loop: &loop))
            }
        }
        return outcomes
    }

    /// Settles the conflict `named` names (see `resolve(_:keep:)`).
    private func resolve(_ named: RelativePath, keep: ConflictKeep, loop: inout EngineLoop) -> ActionOutcome {
        func outcome(_ done: Bool, _ message: String) -> ActionOutcome {
            ActionOutcome(folder: configuration.zone.name, path: named.string, done: done, message: message)
        }
        /// What to answer for a path that names no conflict.
        func noConflict(_ lookup: Lookup) -> ActionOutcome {
            switch lookup {
            case .missing: outcome(false, "no such item")
            case .orphan(let name): outcome(false, "its original \(name) is gone, so nothing is in conflict: rename or delete the copy yourself")
            case .none, .conflict: outcome(true, "no conflict to resolve")
            }
        }
        do throws(SyncError) {
            // What the files are now, not what the index last saw: compare them first.
            let seen = try findConflict(named)
            guard case .conflict(let before) = seen else { return noConflict(seen) }
            try reconciler.reconcile(([before.original] + before.copies).map { EngineInbox.Scope(path: $0.path, subtree: false) }, loop: &loop)
            let found = try findConflict(named)
            guard case .conflict(let conflict) = found else { return noConflict(found) }
            let steps = try ConflictResolution.plan(
                original: conflict.original.path, copies: conflict.copies.map(\.path), named: named, keep: keep,
                device: configuration.device) { [self] candidate in
                // In use: on disk, or by any item of the index (a deletion waiting to be sent too).
                let indexed = try? readIndex { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM item WHERE path = ?)", arguments: [candidate.string]) }
                return indexed != false || ((try? fileSystem.status(absolute(candidate))) ?? nil) != nil
            }
            guard !steps.isEmpty else { return outcome(true, "no conflict to resolve") }
            try check(steps, of: conflict, keep: keep)
            var notes: [String] = []
            for step in steps { notes.append(try carryOut(step, of: conflict, keep: keep, loop: &loop)) }
            return outcome(true, notes.joined(separator: "; "))
        } catch {
            logger.warning("could not resolve a conflict", metadata: ["path": "\(named)", "error": "\(error.message)"])
            return outcome(false, error.message)
        }
    }

    /// An original and its conflict copies, as the index has them.
    private struct Conflict {
        var original: IndexItem
        var copies: [IndexItem]

        func copy(at path: RelativePath) -> IndexItem? { copies.first { $0.path == path } }
    }

    private enum Lookup {
        case conflict(Conflict)
        /// Nothing at the path.
        case missing
        /// A conflict copy whose original is gone.
        case orphan(originalName: String)
        /// An item in no conflict.
        case none
    }

    /// The conflict `path` names: as an original with copies beside it, else as a copy.
    private func findConflict(_ path: RelativePath) throws(SyncError) -> Lookup {
        try readIndex { db -> Lookup in
            guard let row = try db.item(at: path) else { return .missing }
            let copies = try db.conflictCopies(of: row.path)
            if !copies.isEmpty { return .conflict(Conflict(original: row, copies: copies)) }
            guard let name = ConflictName.originalName(of: path.name) else { return .none }
            let originalPath = path.parent.map { RelativePath($0.string + "/" + name) } ?? RelativePath(name)
            guard let original = try db.item(at: originalPath) else { return .orphan(originalName: name) }
            return .conflict(Conflict(original: original, copies: try db.conflictCopies(of: originalPath)))
        }
    }

    /// Refuses, before anything is touched, what cannot be carried out safely: content chosen
    /// between anything but files, a file not downloaded, a file changed since it was compared.
    private func check(_ steps: [ConflictResolution.Step], of conflict: Conflict, keep: ConflictKeep) throws(SyncError) {
        var rows: [IndexItem] = []
        for step in steps {
            guard let copy = conflict.copy(at: step.copy) else { continue }
            rows.append(copy)
            if case .renameCopy = step { continue }
            if !rows.contains(where: { $0.recordName == conflict.original.recordName }) { rows.append(conflict.original) }
        }
        for row in rows {
            if keep != .both, row.kind != .document {
                throw SyncError(.invalidArguments, "\(row.path.name) is a \(row.kind.rawValue.lowercased()): only files' content can be chosen; "
                                + "keep both (--keep both), or move or delete it yourself")
            }
            if row.isPlaceholder {
                throw SyncError(.invalidArguments, "\(row.path.name) is not downloaded: download it first (docs-status download PATH), then resolve")
            }
            guard let stat = try? fileSystem.status(absolute(row.path)), row.matches(stat) else {
                throw SyncError(.assetFileModified, "\(row.path.name) changed while it was compared; try again once it has settled")
            }
        }
    }

    /// Carries out one step, logs it, and says what was done.
    private func carryOut(_ step: ConflictResolution.Step, of conflict: Conflict, keep: ConflictKeep, loop: inout EngineLoop) throws(SyncError) -> String {
        let original = conflict.original
        guard let copy = conflict.copy(at: step.copy) else { throw SyncError(.invalidArguments, "\(step.copy.name) is gone") }
        let copyDevice = ConflictName.device(of: copy.path.name) ?? "unknown"
        let copyIsLocal = ConflictResolution.isLocal(copy.path, device: copyLabel) || ConflictResolution.isLocal(copy.path, device: configuration.device)
        // Whose content the original holds: this device's while an edit of it waits to be sent,
        // else the device that made the version the server acknowledged.
        let originalDevice = original.pending == .save ? configuration.device : original.acked?.lastModifiedBy ?? configuration.device
        let otherDevice = copyIsLocal ? originalDevice : copyDevice
        let kept = keep == .local ? "this device's version" : "\(otherDevice)'s version"
        let note: String
        var detail: String?  // what the log says, when not `note`
        var scopes = [EngineInbox.Scope(path: original.path, subtree: false), EngineInbox.Scope(path: copy.path, subtree: false)]
        switch step {
        case .takeCopy:
            // The original's content to the version store (a link: it stays until replaced),
            // then the copy renamed over it: the item keeps its identity and gets the copy's content.
            let version = try writeIndex { db in
                try versions.keep(absolute(original.path), item: original, reason: .conflict, device: originalDevice, move: false, in: db)
                return db.lastInsertedRowID
            }
            do {
                try fileSystem.rename(absolute(copy.path), to: absolute(original.path))
                try fileSystem.flushDirectory((absolute(original.path) as NSString).deletingLastPathComponent)
            } catch {
                throw Materializer.failure("put the kept version in place at", original.path.string, error)
            }
            note = "kept \(kept) from \(copy.path.name); the replaced one is version \(version) in the version store"
        case .dropCopy:
            // The copy's content to the version store, filed under the original (moved: it leaves the folder).
            var filed = copy
            filed.path = original.path
            filed.recordName = original.recordName
            let version = try writeIndex { db in
                try versions.keep(absolute(copy.path), item: filed, reason: .conflict, device: copyDevice, move: true, in: db)
                return db.lastInsertedRowID
            }
            note = "kept \(kept); \(copy.path.name) is version \(version) in the version store"
        case .renameCopy(_, let target):
            let code = Materializer.moveIfFree(absolute(copy.path), absolute(target), in: fileSystem)
            guard code == 0 else {
                throw code == EEXIST
                    ? SyncError(.invalidArguments, "something appeared at \(target.name) meanwhile; try again")
                    : Materializer.failure("rename the conflict copy to", target.string, code: code)
            }
            scopes.append(EngineInbox.Scope(path: target, subtree: true))
            note = "kept both: \(copy.path.name) is now \(target.name)"
            detail = "kept both; the copy is now \(target.string)"
        }
        // Recorded as local changes, sent as any other; the original's flag clears with the copy.
        // The copy's record goes, unless it keeps its name: a deletion the person asked for,
        // which the mass-delete brake does not count (resolving hundreds of copies is no accident).
        if case .renameCopy = step {} else if copy.acked != nil { noteDeletionsAskedFor(1) }
        try reconciler.reconcile(scopes, loop: &loop)
        try writeIndex { db in
            try logConflict(conflictLogEntry(path: original.path, copyPath: copy.path, remoteDevice: otherDevice == configuration.device ? nil : otherDevice,
                                             outcome: keep.outcome, detail: detail ?? note), in: db)
        }
        logger.info("resolved a conflict", metadata: ["path": "\(original.path)", "copy": "\(copy.path)", "keep": "\(keep.rawValue)"])
        return note
    }
}
