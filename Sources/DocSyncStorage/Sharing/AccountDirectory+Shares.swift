import DocSyncCore
import Foundation

/// Shares (SPEC §11), decided over the store's `ShareRows`: the owner's changes, the
/// participants' answers, and who may do what in a zone.
extension AccountDirectory {
    /// `share`'s entries, sorted by the bytes of the participant's name.
    public func shareEntries(of share: ShareName) async throws(SyncError) -> [ShareEntry] {
        try await rows.shareEntries(of: share).sorted { $0.participant.utf8.lexicographicallyPrecedes($1.participant.utf8) }
    }

    /// The entries whose participant is `participant`, sorted by share.
    public func shares(of participant: String) async throws(SyncError) -> [ShareEntry] {
        try await rows.shareEntries(participant: participant).sorted { $0.share < $1.share }
    }

    /// The owner's change `action` (invite, remove, setPermission; or stop, which takes no
    /// participants and ends every open entry) to `participants`' entries of `share`; returns
    /// every entry of the share after it. An invitation names existing accounts other than
    /// the owner (`invalidArguments` otherwise); the others name participants (invited or
    /// accepted). Each entry changes on its own: an error stops at that participant, after
    /// the ones before it changed.
    public func changeShare(_ share: ShareName, _ action: ShareAction, participants: [String],
                            now: Timestamp = Timestamp(Date())) async throws(SyncError) -> [ShareEntry] {
        precondition(action.isOwners, "a participant's answer goes through answerShare")
        var names = participants
        if action == .stop {
            names = try await rows.shareEntries(of: share).filter(\.status.isOpen).map(\.participant)
        } else if case .invite = action {
            let known = Set(try await rows.accounts().map(\.name))
            for name in participants where !known.contains(name) {
                try AccountRules.check(userName: name)
                throw AccountRules.noSuchUser(name)
            }
        }
        for name in names {
            _ = try await change(share, participant: name, action, now: now)
        }
        return try await shareEntries(of: share)
    }

    /// The participant's answer `action` (accept, decline, leave) to `share`; returns its
    /// entry after it. Without an open entry of `participant`: `zoneNotFound`, as for a
    /// share that does not exist.
    public func answerShare(_ share: ShareName, participant: String, _ action: ShareAction,
                            now: Timestamp = Timestamp(Date())) async throws(SyncError) -> ShareEntry {
        precondition(!action.isOwners, "the owner's changes go through changeShare")
        guard participant != share.owner else { throw ShareRules.noSuchShare(share) }
        return try await change(share, participant: participant, action, now: now)
    }

    /// Carries `share`'s open entries to the owner's zone `target`, where the zone moved
    /// (SPEC §13, `moveZone`): each participant keeps its permission and status there. The
    /// old entries stay as they are, so a participant's device still reaching the old zone is
    /// told where it moved (`zoneMoved`) and follows. An entry the target has already is kept.
    public func carryShare(_ share: ShareName, to target: ZoneID, now: Timestamp = Timestamp(Date())) async throws(SyncError) {
        let moved = ShareName(owner: share.owner, zone: target)
        for entry in try await rows.shareEntries(of: share) where entry.status.isOpen {
            guard try await rows.shareEntry(moved, participant: entry.participant) == nil else { continue }
            let carried = ShareEntry(share: moved, participant: entry.participant, permission: entry.permission, status: entry.status, changed: now)
            _ = try await rows.replaceShareEntry(nil, with: carried)
        }
    }

    /// The role in which `caller` may do `operation` in `share`, or the error that refuses it
    /// (`ZoneAccess`). The owner's requests need no look-up.
    public func access(_ operation: ZoneOperation, caller: String, share: ShareName) async throws(SyncError) -> ZoneRole {
        if caller != share.owner, share.zone == ZoneAccess.publicKeysZone, !(try await rows.accounts().contains { $0.name == share.owner }) {
            // Every account's public key store is readable, so an unknown owner is told apart.
            throw ShareRules.noSuchShare(share)
        }
        let entry = caller == share.owner ? nil : try await rows.shareEntry(share, participant: caller)
        return try ZoneAccess.require(ZoneAccess.decide(operation, caller: caller, share: share, entry: entry), operation, in: share)
    }

    /// Applies `action` to one entry, reading it again when someone changed it meanwhile.
    private func change(_ share: ShareName, participant: String, _ action: ShareAction, now: Timestamp) async throws(SyncError) -> ShareEntry {
        for _ in 0 ..< 16 {
            let current = try await rows.shareEntry(share, participant: participant)
            guard let next = try ShareRules.apply(action, to: current, share: share, participant: participant, now: now) else {
                // Unchanged: `apply` returns nil only for an entry that exists, or for stop.
                if let current { return current }
                throw ShareRules.noSuchShare(share)
            }
            if try await rows.replaceShareEntry(current, with: next) { return next }
        }
        throw SyncError(.zoneBusy, "the share \(share) keeps changing under this request; retry shortly")
    }
}
