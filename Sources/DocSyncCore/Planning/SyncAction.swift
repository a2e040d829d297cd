/// One step of a plan: what the executor does to the folder, the index or the backend.
/// Items are named by record name; paths are relative to the folder. The executor carries
/// out a plan's actions in order and stops at the first that finds the folder changed under
/// it (the change is then observed and the plan made again).
public enum SyncAction: Sendable, Hashable {
    /// Writes `record` (content, folder or link) at its path, where nothing may be — or,
    /// with `over`, where that item's file is expected (its row is dropped and its content
    /// kept in the version store as overwritten). The record becomes an item here,
    /// acknowledged.
    case place(Record, over: String? = nil)
    /// Shows the document `record` as a placeholder (downloaded instead when its name has
    /// no room for a placeholder's).
    case placePlaceholder(Record)
    /// The placeholder of `item` follows `record` (moved, its time updated).
    case updatePlaceholder(item: String, to: Record)
    /// The placeholder of `item` and its row go.
    case removePlaceholder(item: String)
    /// Renames `item` (a folder with everything in it) to `path`, which must be free.
    case move(item: String, to: RelativePath)
    /// Renames `item` out of the way to `path` (a conflict of names); the move is sent.
    case moveAside(item: String, to: RelativePath)
    /// Moves `item`'s file to `path` as a new item named `recordName`, sent as new: the
    /// local side of a content conflict kept beside the server's.
    case keepConflictCopy(item: String, at: RelativePath, recordName: String)
    /// Keeps `record`'s content (the server's, which lost a conflict) in the version store.
    case keepInVersionStore(Record)
    /// Both sides edited the text file `item` (SPEC §4, "Merge before duplicating"): its
    /// content and `server`'s are merged line-wise against `ancestor`'s. When they merge,
    /// the item takes `merged`'s path and mode with the merged text as its content, both
    /// inputs go to the version store, and the result is sent based on `server`. When they
    /// do not (overlapping edits, not text, the ancestor's content gone, a structured file
    /// that no longer parses), `otherwise` is carried out instead: the conflict copy.
    case mergeText(item: String, ancestor: Record, server: Record, merged: Record, otherwise: [SyncAction])
    /// A conflict met and how it ended, for the device's conflict log: `path` the item's
    /// path, `copyPath` its conflict copy's, `remoteDevice` the device whose change met this
    /// one's.
    case noteConflict(path: RelativePath, copyPath: RelativePath?, remoteDevice: String, outcome: ConflictOutcome, detail: String?)
    /// Writes `record`'s content over `item`'s at `record.path`. With `keepReplacedAs` the
    /// item's file is expected there and its content is kept in the version store for that
    /// reason; without, nothing may be there (the item's file moved away).
    case writeContent(item: String, Record, keepReplacedAs: KeptVersionReason?)
    /// Sets `item`'s mode and modification time (its content is already right).
    case setMetadata(item: String, mode: UInt32, modified: Timestamp)
    /// `item` becomes `record`, which the server has: nothing waits to be sent.
    case settle(item: String, as: Record)
    /// `item` becomes `merged`, based on the server's `acked`: the merge is sent.
    case rebase(item: String, merged: Record, acked: Record)
    /// The local `item` takes the server's `record` for itself (same content, or a folder
    /// made on both devices): one item, the server's; a differing local mode is sent.
    case adopt(item: String, as: Record)
    /// The unindexed directory at `record.path` becomes the folder `record`.
    case adoptDirectory(Record)
    /// The folder `record` shares its path with this device's own folder, whose smaller
    /// record name keeps the path: it is remembered, and placed once the path is free (the
    /// kept folder moved or went before the other devices dropped `record`).
    case shadow(Record)
    /// The row of `item` goes (its deletion is done, or it never reached the server).
    case forget(item: String)
    /// `item`, deleted here, stays deleted over `record`, which only relocated it elsewhere
    /// (`RemoteChangePlanner.onlyRelocated`: its folder's move carried it, or an engine moved
    /// it aside): the deletion is sent against `record`.
    case keepDeletion(item: String, over: Record)
    /// `item` loses its acknowledged record: it is sent again as new (an edit that beat a
    /// deletion elsewhere).
    case detach(item: String)
    /// `item` is marked changed, to be sent.
    case markChanged(item: String)
    /// The folder `item` is removed (ignored files left inside go to the version store) and
    /// its row goes.
    case removeDirectory(item: String)
    /// `item`'s file moves to the version store, deleted on another device; its row goes.
    case deleteToVersionStore(item: String)
}

/// Why replaced content is kept in the version store (SPEC §4).
public enum KeptVersionReason: String, Sendable, Hashable {
    /// Content that lost a conflict.
    case conflict
    /// Local content replaced by a remote change.
    case overwritten
    /// A file deleted on another device.
    case deleted
}
