import DocSyncCore
import DocSyncStorage
import Foundation

/// A shared folder on a participant's device (SPEC §11): held while the owner's zone does
/// not answer, detached for good once its share ended, and left by a person's choice.
extension FolderEngine {
    /// The share list says this shared folder's share ended (removed, left, declined,
    /// stopped): the folder is detached for good, its files kept (SPEC §11).
    func shareEnded(_ status: ShareStatus) {
        detach(status)
        logger.warning("the share ended; the folder is no longer synced and its files stay as they are",
                       metadata: ["share": "\(configuration.share.map(\.description) ?? "")", "status": "\(status.rawValue)",
                                  "path": "\(configuration.root.path)"])
    }

    /// Leaves the share on every device of the account (`docs-status leave`, or `deletions
    /// --confirm` of a shared folder whose root is gone): nothing is deleted anywhere, and
    /// this device detaches the folder, its files kept as they are. A share that had ended
    /// already is detached as it ended.
    public func leaveShare() async throws(SyncError) -> ShareEntry {
        guard let share = configuration.share else {
            throw SyncError(.invalidArguments, "\(configuration.root.path) is a folder of this account's own, not a share; to stop sharing it, docs-status share FOLDER --stop")
        }
        guard let membership = givenBackend as? ShareMembership else {
            throw SyncError(.invalidArguments, "shares live on a docsync-server; this folder's backend cannot leave one")
        }
        let entry: ShareEntry
        do {
            entry = try await membership.leave(share)
        } catch where error.code == .zoneNotFound {
            guard let ended = try await membership.shareEntry(share), ended.status.hasEnded else { throw error }
            entry = ended
        }
        detach(entry.status)
        return entry
    }

    /// Detaches the folder for good: nothing is sent, fetched or written any more.
    func detach(_ status: ShareStatus) {
        updateSafety { state in
            state.shareEnded = status
            state.shareUnavailableSince = nil
            state.heldReason = nil
            state.heldSince = nil
        }
        inbox.withLock { $0.retryNow = true }
        wake.fire()
    }
}

extension FolderEngine {
    /// Whether the folder is detached for good: its share ended or was left (SPEC §11).
    public var isDetached: Bool { published.withLock { $0.safety.shareEnded != nil } }
}
