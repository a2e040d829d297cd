/// What a read-only participant's device does with a change made here (SPEC §11): it never
/// sends one, and nothing it keeps loops. A new item stays on this device only ("not
/// shared: read-only", `keepLocal`); whatever the share holds is put back as the share has
/// it — an edited file's content kept beside as a conflict copy (a new item, itself kept
/// local) with the shared version written again at its path, a deleted item written again,
/// a moved item moved back, changed metadata set back. Pure: the caller names the copy's
/// path and record name (used only for an edit of content).
public enum ReadOnlySharePlanner {
    /// The fate of one item's change.
    public enum Decision: Sendable, Hashable {
        /// Nothing waits to be sent for the item.
        case unchanged
        /// A new item: stays on this device, not pending, sent if the share becomes read-write.
        case keepLocal
        /// The shared version comes back through these actions (for `Executor`).
        case putBack([SyncAction])
    }

    /// The detail the conflict log gives an edit kept beside on a read-only share.
    public static let conflictDetail =
        "the share is read-only for this account: this device's edit is kept beside as a copy that stays here; the shared version is back at its path"

    /// Decides `item`'s change. `conflictCopy` is a free path beside the item for its
    /// content, `copyRecordName` a fresh record name for that copy.
    public static func plan(_ item: LocalItem, conflictCopy: RelativePath, copyRecordName: String) -> Decision {
        let name = item.recordName
        guard item.change != .none else { return .unchanged }
        guard let shared = item.ancestor else {
            // Never reached the share: a new item stays here; a deletion of one is done.
            return item.change == .deleted ? .putBack([.forget(item: name)]) : .keepLocal
        }
        if item.change == .deleted {
            if item.isPlaceholder { return .putBack([.forget(item: name), .placePlaceholder(shared)]) }
            return .putBack([.writeContent(item: name, shared, keepReplacedAs: nil), .settle(item: name, as: shared)])
        }
        let observed = item.observed
        if observed.isSameRecord(as: shared) { return .putBack([.settle(item: name, as: shared)]) }
        guard observed.hasSameContent(as: shared) else {
            return .putBack([
                .keepConflictCopy(item: name, at: conflictCopy, recordName: copyRecordName),
                .writeContent(item: name, shared, keepReplacedAs: nil),
                .settle(item: name, as: shared),
                .noteConflict(path: shared.path, copyPath: conflictCopy, remoteDevice: shared.lastModifiedBy, outcome: .keptBoth,
                              detail: conflictDetail),
            ])
        }
        var actions: [SyncAction] = []
        if observed.path != shared.path { actions.append(.move(item: name, to: shared.path)) }
        if RemoteChangePlanner.metadataDiffers(observed, shared) {
            actions.append(.setMetadata(item: name, mode: shared.mode, modified: shared.modified))
        }
        actions.append(.settle(item: name, as: shared))
        return .putBack(actions)
    }
}
