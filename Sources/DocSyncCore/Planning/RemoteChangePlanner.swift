/// What one remote change does here (SPEC §3, §4, §4a, §6), decided from a
/// `RemoteChangeScope` alone: no I/O, no clock, no database. Returns the actions in the
/// order the executor must carry them out; an empty plan means nothing to do.
///
/// The rules, one per situation:
/// - an ignored path, or a record this device already holds at this change tag: nothing;
/// - a new record: placed (a placeholder in an on-demand folder); an unindexed directory at
///   its path is adopted by a folder record; another item at its path is resolved as in
///   `collision`;
/// - an item unchanged here follows the server: moved, rewritten (the replaced content kept
///   as overwritten) or only its mode and time set; an item in the way of its move is moved
///   aside to a conflict-copy name;
/// - an item changed here is merged three ways against its acknowledged ancestor
///   (`ThreeWayMerge`, following the policy), the losing content kept in the version store
///   or beside as a conflict copy — under keep-both, a text file the folder merges
///   (`TextMergeRule`) is first merged line-wise (`mergeText`), the copy only its fallback;
///   each content conflict is noted for the conflict log (`noteConflict`);
/// - **the edit beats the delete**: a record changed elsewhere (its content, mode, time or
///   name) comes back over a local deletion; a local edit survives a remote deletion and is
///   sent again as new. A relocation is no edit (`onlyRelocated`: moved to another folder
///   under its name, as a folder's move carries everything in it, or aside to a conflict
///   copy's name): a record only relocated elsewhere stays deleted here, and an item only
///   relocated here, or moved by the engine, loses to a remote deletion;
/// - a remote deletion moves the file to the version store; a folder that still holds live
///   items stays and is sent again.
public enum RemoteChangePlanner {
    public static func plan(_ scope: RemoteChangeScope, settings: PlannerSettings) -> [SyncAction] {
        switch scope.change {
        case .saved(let record): return planSave(record, scope, settings)
        case .deleted: return scope.item.map { planDeletion(of: $0, hasLiveChildren: scope.hasLiveChildren) } ?? []
        }
    }

    // MARK: saves

    private static func planSave(_ server: Record, _ scope: RemoteChangeScope, _ settings: PlannerSettings) -> [SyncAction] {
        if scope.isIgnored { return [] }
        guard let item = scope.item else { return planNew(server, scope, settings) }
        if let ancestor = item.ancestor, ancestor.changeTag == server.changeTag { return [] }
        switch item.change {
        case .none where item.isPlaceholder:
            guard server.type == .document else {
                // No longer a document: the placeholder goes and the record arrives as new.
                var rest = scope
                rest.item = nil
                return [.removePlaceholder(item: item.recordName)] + planNew(server, rest, settings)
            }
            return [.updatePlaceholder(item: item.recordName, to: server)]
        case .none:
            return planUpdate(item, to: server, scope, settings)
        case .deleted:
            // Only relocated elsewhere (moved along with its folder, or aside to a conflict
            // copy's name) is no edit: the deletion stands.
            if onlyRelocatedElsewhere(server, item) { return [.keepDeletion(item: item.recordName, over: server)] }
            // Deleted here, changed there: the edit wins and the item comes back.
            let aside = scope.occupant.map { moveAside($0, scope, settings) } ?? []
            if settings.onDemand, item.isPlaceholder, server.type == .document { return aside + [.placePlaceholder(server)] }
            return aside + [.place(server)]
        case .edited:
            return planMerge(item, with: server, scope, settings)
        }
    }

    /// The item is as the server last acknowledged it: it takes the server's record.
    private static func planUpdate(_ item: LocalItem, to server: Record, _ scope: RemoteChangeScope, _ settings: PlannerSettings) -> [SyncAction] {
        var actions: [SyncAction] = []
        if server.path != item.path {
            if let occupant = scope.occupant { actions += moveAside(occupant, scope, settings) }
            actions.append(.move(item: item.recordName, to: server.path))
        }
        if !sameContent(item.observed, server) {
            actions.append(.writeContent(item: item.recordName, server, keepReplacedAs: .overwritten))
        } else if metadataDiffers(item.observed, server) {
            actions.append(.setMetadata(item: item.recordName, mode: server.mode, modified: server.modified))
        }
        actions.append(.settle(item: item.recordName, as: server))
        return actions
    }

    /// Both sides changed the item: a three-way merge against the acknowledged ancestor.
    private static func planMerge(_ item: LocalItem, with server: Record, _ scope: RemoteChangeScope, _ settings: PlannerSettings) -> [SyncAction] {
        // An item at the server's path is moved aside first when the merge moves there; the
        // name it takes is then in use for the merge's own conflict copy.
        var actions: [SyncAction] = []
        var inUse = scope.pathsInUse
        if let occupant = scope.occupant, occupant.path == server.path, server.path != item.path {
            let aside = asidePath(occupant, inUse, settings)
            actions.append(.moveAside(item: occupant.recordName, to: aside))
            inUse.insert(aside)
        }
        let outcome = ThreeWayMerge.merge(
            ancestor: item.ancestor, local: item.observed, server: server, policy: settings.conflictPolicy,
            localDevice: settings.device, copyLabel: settings.copyLabel, conflictCopyName: scope.freshRecordName, conflictTime: item.observed.modified,
            pathIsTaken: { inUse.contains($0) })
        let merged = outcome.merged
        if merged.path != server.path { actions.removeAll() }  // the item stays where it is: nothing is in its way
        var replaced: KeptVersionReason? = outcome.losingContent == .local ? .conflict : .overwritten
        var needWrite = !sameContent(item.observed, merged)
        var rest: [SyncAction] = []
        if let copy = outcome.conflictCopy {
            // Keep both: the local content moves aside as a new item; the server's takes its place.
            rest.append(.keepConflictCopy(item: item.recordName, at: copy.path, recordName: copy.id.recordName))
            replaced = nil
            needWrite = true
        } else if merged.path != item.path {
            rest.append(.move(item: item.recordName, to: merged.path))
        }
        if outcome.losingContent == .server { rest.append(.keepInVersionStore(server)) }
        if needWrite {
            rest.append(.writeContent(item: item.recordName, merged, keepReplacedAs: replaced))
        } else if metadataDiffers(item.observed, merged) {
            rest.append(.setMetadata(item: item.recordName, mode: merged.mode, modified: merged.modified))
        }
        rest.append(outcome.needsSend ? .rebase(item: item.recordName, merged: merged, acked: server) : .settle(item: item.recordName, as: server))
        if let note = conflictNote(outcome, server: server, policy: settings.conflictPolicy) { rest.append(note) }
        // Both sides edited a text file: merged line-wise when the edits allow, the conflict
        // copy otherwise.
        if outcome.conflictCopy != nil, let ancestor = item.ancestor,
           settings.textMerge?.admits(ancestor: ancestor, local: item.observed, server: server, at: merged.path) == true {
            return actions + [.mergeText(item: item.recordName, ancestor: ancestor, server: server, merged: merged, otherwise: rest)]
        }
        return actions + rest
    }

    /// The conflict-log entry of a merge whose contents clashed: kept both, or settled by the
    /// policy (nil when the contents did not clash).
    private static func conflictNote(_ outcome: MergeOutcome, server: Record, policy: ConflictPolicy) -> SyncAction? {
        let noted: ConflictOutcome, detail: String
        if outcome.conflictCopy != nil {
            (noted, detail) = (.keptBoth, "both devices changed the content; this device's is kept beside")
        } else {
            switch outcome.losingContent {
            case nil: return nil
            case .server?: (noted, detail) = (.localWon, "\(policy.rawValue): this device's content kept; the other's is in the version store")
            case .local?: (noted, detail) = (.remoteWon, "\(policy.rawValue): the other device's content kept; this device's is in the version store")
            }
        }
        return .noteConflict(path: outcome.merged.path, copyPath: outcome.conflictCopy?.path, remoteDevice: server.lastModifiedBy,
                             outcome: noted, detail: detail)
    }

    /// A record this device does not know yet.
    private static func planNew(_ server: Record, _ scope: RemoteChangeScope, _ settings: PlannerSettings) -> [SyncAction] {
        if let occupant = scope.occupant { return collision(occupant, server, scope, settings) }
        if scope.directoryAtPath, server.type == .folder { return [.adoptDirectory(server)] }
        if settings.onDemand, server.type == .document { return [.placePlaceholder(server)] }
        return [.place(server)]
    }

    /// A new remote record and a different local item at the same path.
    private static func collision(_ local: LocalItem, _ server: Record, _ scope: RemoteChangeScope, _ settings: PlannerSettings) -> [SyncAction] {
        if local.type == .folder, server.type == .folder {
            // Two folder records for one path: the smaller name stays, the other device drops
            // its own; until it has, the other record waits here for the path to be free.
            if local.ancestor != nil, local.recordName < server.id.recordName { return [.shadow(server)] }
            return [.adopt(item: local.recordName, as: server)]
        }
        if local.ancestor == nil, local.type == server.type {
            if local.type == .document, !sameContent(local.observed, server), local.observed.modified < server.modified, scope.joining {
                // Joining (SPEC §4a): a local file older than the server's version is a stale
                // copy (a backup restored, a folder synced long ago): the server's version
                // takes its place and the local one goes to the version store.
                return [.place(server, over: local.recordName)]
            }
            // The same content made on both devices: one item, the server's.
            if sameContent(local.observed, server) { return [.adopt(item: local.recordName, as: server)] }
        }
        if local.change == .none, local.ancestor != nil, scope.occupantDeleted, local.type != .folder || !scope.occupantHasLiveChildren {
            // The item here was deleted elsewhere in the same fetch and this record took its
            // place (replaced, not edited): the deletion first, then the new record.
            var rest = scope
            rest.occupant = nil
            return planDeletion(of: local, hasLiveChildren: false) + planNew(server, rest, settings)
        }
        return moveAside(local, scope, settings) + [.place(server)]
    }

    /// Moves `local` out of the way to a free conflict-copy name beside it.
    private static func moveAside(_ local: LocalItem, _ scope: RemoteChangeScope, _ settings: PlannerSettings) -> [SyncAction] {
        [.moveAside(item: local.recordName, to: asidePath(local, scope.pathsInUse, settings))]
    }

    /// The conflict-copy name `local` is moved aside to: beside it, with its time, free.
    private static func asidePath(_ local: LocalItem, _ inUse: Set<RelativePath>, _ settings: PlannerSettings) -> RelativePath {
        ConflictName.copyPath(for: local.path, device: settings.copyLabel, time: local.observed.modified, isTaken: { inUse.contains($0) })
    }

    // MARK: deletions

    /// The item's record was deleted on another device.
    private static func planDeletion(of item: LocalItem, hasLiveChildren: Bool) -> [SyncAction] {
        // Moved by the engine only, or only relocated here: no edit of anyone's competes with
        // the deletion.
        switch item.onlyMovedByEngine || onlyRelocated(item) ? .none : item.change {
        case .deleted:
            return [.forget(item: item.recordName)]
        case .edited:
            // Changed here, deleted there: the edit wins and is sent again as new.
            return [.detach(item: item.recordName)]
        case .none:
            if item.isPlaceholder { return [.removePlaceholder(item: item.recordName)] }
            guard item.type == .folder else { return [.deleteToVersionStore(item: item.recordName)] }
            // New local items inside: the folder stays and is sent again.
            if hasLiveChildren { return [.detach(item: item.recordName), .markChanged(item: item.recordName)] }
            return [.removeDirectory(item: item.recordName)]
        }
    }

    // MARK: comparisons

    /// Whether `server` changed `item`'s record only by relocating it (`onlyRelocated`).
    /// SPEC §4: a folder deleted on one device while another moved it comes back only with
    /// the files added or edited in it.
    static func onlyRelocatedElsewhere(_ server: Record, _ item: LocalItem) -> Bool {
        guard let ancestor = item.ancestor else { return false }
        return onlyRelocated(ancestor, server)
    }

    /// Whether the item's only change here is a relocation (`onlyRelocated`): the same deal
    /// as `onlyRelocatedElsewhere`, from this side.
    static func onlyRelocated(_ item: LocalItem) -> Bool {
        guard item.change == .edited, let ancestor = item.ancestor else { return false }
        return onlyRelocated(ancestor, item.observed)
    }

    /// `changed` is `ancestor` relocated, nothing else changed: moved to another folder under
    /// the same name (what a folder's move does to everything in it), or moved aside under a
    /// conflict copy's name of it (what an engine does when another item takes its path).
    public static func onlyRelocated(_ ancestor: Record, _ changed: Record) -> Bool {
        guard changed.path != ancestor.path,
              changed.path.name.bytesEqual(ancestor.path.name) || ConflictName.originalName(of: changed.path.name).bytesEqual(ancestor.path.name)
        else { return false }
        return sameContent(changed, ancestor) && !metadataDiffers(ancestor, changed)
    }

    /// Same type and content, as the merge compares them (`Record.hasSameContent`).
    static func sameContent(_ a: Record, _ b: Record) -> Bool { a.hasSameContent(as: b) }

    /// The mode differs, or a document's modification time (the only times kept on disk).
    static func metadataDiffers(_ local: Record, _ target: Record) -> Bool {
        local.mode != target.mode || (target.type == .document && local.modified != target.modified)
    }
}
