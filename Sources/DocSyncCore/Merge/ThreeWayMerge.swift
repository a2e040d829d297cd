/// Field-wise three-way merge of one item against the last record the server acknowledged
/// (SPEC §4). Pure: the device name, the fresh record name, the time and the "is this path
/// taken?" question are passed in.
///
/// Four field groups are merged separately: **path**, **mode**, **content** (type, digest,
/// size, asset, symlink target — compared by type, digest and target) and **modified**.
/// For each group: changed on the local side only → the local value; changed on the server
/// only, or on neither → the server's; changed on both to equal values → that value; changed
/// on both to different values → a conflict. A path or mode conflict goes to the server
/// (nothing is lost: the content is the same). A content conflict follows the policy:
///
/// | policy | merged content | conflict copy | `losingContent` |
/// |---|---|---|---|
/// | `keepBoth` | server's | local content beside it | nil |
/// | `newestWins` | the later `modified` (server's on a tie) | — | the other side |
/// | `localWins` | local | — | `.server` |
/// | `remoteWins` | server's | — | `.local` |
///
/// `modified` follows the content when the two contents differ; when they are the same, it
/// is the side whose `modified` changed against the ancestor (the server's when both or
/// neither did). Without an ancestor (both sides created the item independently) every group
/// counts as changed on both sides, so equal values merge quietly and different contents
/// conflict. Folders never conflict on content. The merged record keeps the server's id and
/// change tag; its `lastModifiedBy` is the server's unless a local value was taken for any
/// group, then `localDevice`.
public enum ThreeWayMerge {
    /// Merges `local` and `server` against `ancestor`.
    ///
    /// - Parameters:
    ///   - ancestor: the last record the server acknowledged for this item (nil if local never synced it).
    ///   - local: the item as it is on this device now (same record id; its changeTag is ignored).
    ///   - server: the server's current record.
    ///   - policy: the folder's conflict policy.
    ///   - localDevice: this device's name, for `lastModifiedBy` and the conflict copy's name.
    ///   - copyLabel: what the conflict copy's name carries instead of `localDevice` (in a
    ///     shared folder, the account and the device).
    ///   - conflictCopyName: a fresh, valid record name (`RecordID.newName()`), used only when
    ///     a conflict copy is made; it must be a valid record name (checked by precondition).
    ///   - conflictTime: the time shown in the conflict copy's name.
    ///   - pathIsTaken: whether a path is already used in the folder (on disk or in the index).
    public static func merge(
        ancestor: Record?, local: Record, server: Record, policy: ConflictPolicy,
        localDevice: String, copyLabel: String? = nil, conflictCopyName: String, conflictTime: Timestamp,
        pathIsTaken: (RelativePath) -> Bool
    ) -> MergeOutcome {
        var merged = server
        var tookLocal = false

        // Path and mode: the server wins a conflict.
        switch pick(ancestor?.path, local.path, server.path, ==) {
        case .local: merged.path = local.path; tookLocal = true
        case .server, .conflict: break
        }
        switch pick(ancestor?.mode, local.mode, server.mode, ==) {
        case .local: merged.mode = local.mode; tookLocal = true
        case .server, .conflict: break
        }

        // Content, then modified, which follows it.
        let localContent = RecordContent(of: local)
        let serverContent = RecordContent(of: server)
        let contentWinner: MergeSide
        var losingContent: MergeSide?
        var keepLocalBeside = false
        switch pick(ancestor.map(RecordContent.init(of:)), localContent, serverContent, { $0.isSame(as: $1) }) {
        case .local: contentWinner = .local
        case .server: contentWinner = .server
        case .conflict:
            switch policy {
            case .keepBoth:
                contentWinner = .server
                keepLocalBeside = true
            case .newestWins:
                contentWinner = local.modified > server.modified ? .local : .server
                losingContent = contentWinner == .local ? .server : .local
            case .localWins:
                contentWinner = .local
                losingContent = .server
            case .remoteWins:
                contentWinner = .server
                losingContent = .local
            }
        }
        if contentWinner == .local {
            localContent.apply(to: &merged)
            tookLocal = true
        }

        if !localContent.isSame(as: serverContent) {
            merged.modified = contentWinner == .local ? local.modified : server.modified
        } else if let ancestor, local.modified != ancestor.modified, server.modified == ancestor.modified {
            merged.modified = local.modified
            tookLocal = true
        }

        if tookLocal { merged.lastModifiedBy = localDevice }

        var conflictCopy: Record?
        if keepLocalBeside {
            conflictCopy = Record(
                id: RecordID(zone: local.id.zone, recordName: conflictCopyName), type: local.type, changeTag: nil,
                path: ConflictName.copyPath(for: merged.path, device: copyLabel ?? localDevice, time: conflictTime, isTaken: pathIsTaken),
                size: local.size, modified: local.modified, mode: local.mode, contentDigest: local.contentDigest,
                asset: local.asset, symlinkTarget: local.symlinkTarget, lastModifiedBy: localDevice)
        }

        return MergeOutcome(merged: merged, conflictCopy: conflictCopy, losingContent: losingContent,
                            needsSend: merged != server)
    }

    /// Which side's value a field group takes.
    enum Pick: Equatable { case local, server, conflict }

    /// The three-way rule for one field group; `same` says when two values are the same.
    static func pick<Value>(_ ancestor: Value?, _ local: Value, _ server: Value, _ same: (Value, Value) -> Bool) -> Pick {
        let localChanged = ancestor.map { !same(local, $0) } ?? true
        let serverChanged = ancestor.map { !same(server, $0) } ?? true
        switch (localChanged, serverChanged) {
        case (true, false): return .local
        case (false, _): return .server
        case (true, true): return same(local, server) ? .server : .conflict
        }
    }
}
