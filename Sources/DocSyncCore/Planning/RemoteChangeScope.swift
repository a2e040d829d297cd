/// Everything the planner needs to decide what one remote change does here: the change, the
/// local item it names, the other local item in the way, and the few facts of the disk that
/// matter. The executor observes these (looking at the disk first, so the index is current
/// for the paths involved) and the planner reads nothing else.
public struct RemoteChangeScope: Sendable, Hashable {
    public var change: RemoteChange
    /// The local item with the change's record name, if the index has one.
    public var item: LocalItem?
    /// Another live local item (not a pending deletion) at the path the saved record names.
    public var occupant: LocalItem?
    /// The same fetch deletes the occupant's record (it was replaced there, not edited).
    public var occupantDeleted: Bool
    /// For a folder occupant: live items lie beneath it.
    public var occupantHasLiveChildren: Bool
    /// An unindexed directory is at the saved record's path (one made for the items inside it).
    public var directoryAtPath: Bool
    /// For a folder item: live items lie beneath it (its deletion must not remove them).
    public var hasLiveChildren: Bool
    /// The saved record's path is ignored here.
    public var isIgnored: Bool
    /// Paths in use (on disk or in the index) among the conflict-copy names the planner may
    /// pick: a copy is never named over one of them.
    public var pathsInUse: Set<RelativePath>
    /// A fresh record name, for a conflict copy made by a merge (needed only when the item
    /// is edited here).
    public var freshRecordName: String
    /// This fetch joins the zone (SPEC §4a): a first fetch into an index that never had
    /// anything acknowledged.
    public var joining: Bool

    public init(change: RemoteChange, item: LocalItem? = nil, occupant: LocalItem? = nil, occupantDeleted: Bool = false,
                occupantHasLiveChildren: Bool = false, directoryAtPath: Bool = false,
                hasLiveChildren: Bool = false, isIgnored: Bool = false, pathsInUse: Set<RelativePath> = [],
                freshRecordName: String, joining: Bool = false) {
        self.change = change
        self.item = item
        self.occupant = occupant
        self.occupantDeleted = occupantDeleted
        self.occupantHasLiveChildren = occupantHasLiveChildren
        self.directoryAtPath = directoryAtPath
        self.hasLiveChildren = hasLiveChildren
        self.isIgnored = isIgnored
        self.pathsInUse = pathsInUse
        self.freshRecordName = freshRecordName
        self.joining = joining
    }
}

/// The folder's settings the planner follows.
public struct PlannerSettings: Sendable, Hashable {
    /// This device's name (`lastModifiedBy`, and conflict copies unless `copyLabel` says otherwise).
    public var device: String
    /// What conflict copies name: the device, or in a shared folder the account and the
    /// device (`SharedFolderFacts.conflictLabel`, SPEC §11).
    public var copyLabel: String
    public var conflictPolicy: ConflictPolicy
    /// New remote documents arrive as placeholders (SPEC §6).
    public var onDemand: Bool
    /// Which files a content conflict is merged line-wise for, under `keepBoth` (SPEC §4);
    /// nil merges none.
    public var textMerge: TextMergeRule?

    public init(device: String, copyLabel: String? = nil, conflictPolicy: ConflictPolicy = .keepBoth, onDemand: Bool = false,
                textMerge: TextMergeRule? = nil) {
        self.device = device
        self.copyLabel = copyLabel ?? device
        self.conflictPolicy = conflictPolicy
        self.onDemand = onDemand
        self.textMerge = textMerge
    }
}
