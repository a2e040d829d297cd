import DocSyncCore

/// How a share's entries change (SPEC §11), decided once for every store: each action
/// applied to one participant's current entry gives the entry to store, or an error that
/// says what to do instead.
///
/// - `invite` makes a new entry `invited`, and opens an ended one again (declined,
///   removed, left or stopped: invited afresh); on an open entry it sets the permission
///   and keeps the status.
/// - `remove` and `setPermission` need an open entry (invited or accepted); `stop` ends
///   every open entry and leaves ended ones as they are.
/// - `accept` turns `invited` into `accepted` (and leaves `accepted` as it is); `decline`
///   needs `invited`; `leave` ends an open entry. Without an open entry a participant's
///   answer is the `zoneNotFound` of a share that does not exist: an account learns
///   nothing of shares it was not offered.
public enum ShareRules {
    /// The entry `action` leaves for `participant` in `share`, given its current entry
    /// (`nil`: none); `nil` when nothing changes. `now` stamps a changed entry.
    public static func apply(_ action: ShareAction, to current: ShareEntry?, share: ShareName, participant: String,
                             now: Timestamp) throws(SyncError) -> ShareEntry? {
        guard !share.zone.isKeyValueStore else {
            throw SyncError(.invalidArguments, "\(share.zone) is a key-value store's zone; key-value stores are the account's own and are never shared")
        }
        func changed(_ permission: SharePermission, _ status: ShareStatus) -> ShareEntry? {
            guard current?.permission != permission || current?.status != status else { return nil }
            return ShareEntry(share: share, participant: participant, permission: permission, status: status, changed: now)
        }
        switch action {
        case .invite(let permission):
            guard participant != share.owner else {
                throw SyncError(.invalidArguments, "\(participant) owns \(share); invite other accounts")
            }
            guard let current, current.status.isOpen else { return changed(permission, .invited) }
            return changed(permission, current.status)
        case .remove:
            let current = try open(current, share, participant)
            return changed(current.permission, .removed)
        case .setPermission(let permission):
            let current = try open(current, share, participant)
            return changed(permission, current.status)
        case .stop:
            guard let current, current.status.isOpen else { return nil }
            return changed(current.permission, .stopped)
        case .accept:
            let current = try offered(current, share)
            return changed(current.permission, .accepted)
        case .decline:
            let current = try offered(current, share)
            guard current.status == .invited else {
                throw SyncError(.invalidArguments, "you accepted \(share); to stop taking part, leave it (docs-status leave FOLDER)")
            }
            return changed(current.permission, .declined)
        case .leave:
            let current = try offered(current, share)
            return changed(current.permission, .left)
        }
    }

    /// The owner's view: an open entry, or `invalidArguments` naming the participant.
    private static func open(_ current: ShareEntry?, _ share: ShareName, _ participant: String) throws(SyncError) -> ShareEntry {
        guard let current, current.status.isOpen else {
            throw SyncError(.invalidArguments, "\(participant) does not take part in \(share); invite them first (docs-status share FOLDER --with \(participant))")
        }
        return current
    }

    /// The participant's view: an open entry, or a share that does not exist.
    private static func offered(_ current: ShareEntry?, _ share: ShareName) throws(SyncError) -> ShareEntry {
        guard let current, current.status.isOpen else { throw noSuchShare(share) }
        return current
    }

    /// `zoneNotFound`: no share `share` is offered to the caller (or none exists: the
    /// caller cannot tell which).
    public static func noSuchShare(_ share: ShareName) -> SyncError {
        SyncError(.zoneNotFound, "no share \(share) is offered to you; `docs-status shares` lists those that are")
    }
}
