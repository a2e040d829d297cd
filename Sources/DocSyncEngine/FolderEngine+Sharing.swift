import DocSyncCore
import DocSyncStorage
import Foundation

/// What the device knows of its folder's place in a share (SPEC §11), asked of the
/// account's share list when the engine starts and when a push names the zone (a
/// permission change, a removal, a stop are announced on it): the role and permission
/// the engine follows, the keys status shows, and the account conflict copies name.
extension FolderEngine {
    /// How often the owner's device asks whether its folder is shared: each push would be
    /// one more request for every folder, shared or not.
    static let ownerSharingCheckInterval: Duration = .seconds(60)

    /// The folder's place in a share as last learned; `nil` when shared with nobody.
    public var sharing: SharedFolderFacts? { published.withLock { $0.safety.sharing } }

    /// What conflict copies made here name: in a shared folder the account and the
    /// device, else the device.
    var copyLabel: String { sharing?.conflictLabel(device: configuration.device) ?? configuration.device }

    /// True when this device's changes must stay here: a read-only participant's.
    var keepsChangesLocal: Bool { configuration.share != nil && sharing?.isReadOnly == true }

    /// Asks the share list what the folder's place in its share is now and follows it.
    /// Returns true when the share ended and the folder was detached for good. A backend
    /// without shares (the embedded store), or a share missing from the list, changes
    /// nothing: a shared folder whose zone does not answer stays held (SPEC §11).
    func refreshSharing(loop: inout EngineLoop) async throws(SyncError) -> Bool {
        guard let membership = givenBackend as? ShareMembership else { return false }
        if let share = configuration.share {
            guard let entry = try await membership.shareEntry(share) else { return false }
            if entry.status.hasEnded {
                shareEnded(entry.status)
                return true
            }
            guard entry.status == .accepted else { return false }
            learn(SharedFolderFacts(participating: entry))
            return false
        }
        if let last = loop.lastOwnerSharingCheck, environment.now() - last < Self.ownerSharingCheckInterval { return false }
        loop.lastOwnerSharingCheck = environment.now()
        do {
            let found = try await membership.participants(of: configuration.zone)
            learn(found.entries.contains { $0.status.isOpen } ? .owner(found.share.owner) : nil)
        } catch where error.code == .zoneNotFound {
            // Not created yet: shared with nobody.
        }
        return false
    }

    /// The owner's share of this folder as the server answered a look or a change made
    /// through this device (`docs-status share`): known at once, without waiting for the
    /// next check.
    public func noteOwnShare(_ share: ShareName, entries: [ShareEntry]) {
        guard configuration.share == nil else { return }
        learn(entries.contains { $0.status.isOpen } ? .owner(share.owner) : nil)
    }

    /// A save was refused with `permissionDenied`: the share is read-only for this account
    /// (the owner changed it; the push may not have come yet).
    func learnReadOnly() {
        guard configuration.share != nil else { return }
        let current = sharing
        learn(SharedFolderFacts(role: .participant, permission: .readOnly, ownerName: current?.ownerName ?? configuration.share?.owner ?? "",
                                accountName: current?.accountName ?? ""))
    }

    /// Stores `facts` and follows a change of permission: read-only from now on, or
    /// read-write again — the changes kept here are then sent (conflict copies as copies).
    func learn(_ facts: SharedFolderFacts?) {
        let before = updateSafety { state -> SharedFolderFacts? in
            defer { state.sharing = facts }
            return state.sharing
        }
        guard before != facts else { return }
        let wasReadOnly = before?.isReadOnly == true, isReadOnly = facts?.isReadOnly == true
        if isReadOnly, !wasReadOnly {
            logger.notice("the share is read-only for this account: changes made here stay on this device",
                          metadata: ["path": "\(configuration.root.path)", "share": "\(configuration.share.map(\.description) ?? "")"])
        } else if wasReadOnly, !isReadOnly {
            let released = (try? index.write { db -> Int in
                try db.execute(sql: "UPDATE item SET uploadingError = NULL WHERE uploadingError = ?", arguments: [FolderStatus.notSharedReadOnly])
                return db.changesCount
            }) ?? 0
            logger.notice("the share is read-write for this account now: what was kept on this device is sent",
                          metadata: ["path": "\(configuration.root.path)", "items": "\(released)"])
            inbox.withLock { $0.send = true }
            wake.fire()
        }
    }
}
