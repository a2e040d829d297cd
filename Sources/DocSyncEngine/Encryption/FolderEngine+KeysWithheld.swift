import DocSyncCore
import Foundation

/// An encrypted folder whose keys are withheld (SPEC §13): while the device awaits approval
/// or the folder cannot be decrypted, it stands still — nothing is sent, applied or deleted,
/// a person's actions are refused — says why in status (`wait` exits 5), and resumes by
/// itself at the first turn after the keys arrive. A plain folder never stands still.
extension FolderEngine {
    /// Why an encrypted folder's engine does nothing now, or `nil` when it may work (its keys
    /// are available, or the folder is plain). Read at each call: the daemon updates the source.
    var keysWithheld: KeysWithheld? {
        switch configuration.encryption?.current {
        case nil, .available: nil
        case .awaitingApproval: .awaitingApproval
        case .waiting(let reason): .waiting(reason)
        case .cannotDecrypt(let reason): .cannotDecrypt(reason)
        }
    }

    /// Why an encrypted folder has no keys to work with.
    enum KeysWithheld: Equatable {
        case awaitingApproval
        /// A shared folder's keys have not come yet (`FolderKeySource.State.waiting`).
        case waiting(String)
        case cannotDecrypt(String)

        var state: FolderState {
            switch self {
            case .awaitingApproval, .waiting: .awaitingApproval
            case .cannotDecrypt: .cannotDecrypt
            }
        }

        var heldReason: String {
            switch self {
            case .awaitingApproval, .waiting: HeldDeletions.awaitingApproval
            case .cannotDecrypt: HeldDeletions.cannotDecrypt
            }
        }

        /// For a person: what is going on and what to do.
        var message: String {
            switch self {
            case .awaitingApproval:
                "awaiting approval: this device is not trusted with the encrypted folder's keys yet; nothing is sent or applied "
                    + "until a trusted device approves it (docs-status devices approve) or the recovery key is entered"
            case .waiting(let reason):
                "awaiting keys: \(reason); nothing is sent or applied until they come"
            case .cannotDecrypt(let reason):
                "cannot be decrypted: \(reason); nothing is sent, applied or deleted, and the files here stay as they are"
            }
        }
    }

    /// One turn while the keys are withheld: the folder is shown as awaiting approval or not
    /// decryptable, a person's actions are refused, and nothing else happens (what the
    /// inbox held is looked at again, whole, once the keys arrive: `resumeAfterKeys`).
    func standStill(_ withheld: KeysWithheld, loop: inout EngineLoop) {
        let actions = inbox.withLock { inbox -> [QueuedAction] in
            defer { inbox = EngineInbox() }
            return inbox.actions
        }
        for item in actions {
            item.reply([ActionOutcome(folder: configuration.zone.name, path: ".", done: false, message: "refused: \(withheld.message)")])
        }
        if loop.keysWithheldSince == nil {
            loop.keysWithheldSince = environment.wallNow()
            logger.warning("encrypted folder stands still: its keys are not available",
                           metadata: ["path": "\(configuration.root.path)", "state": "\(withheld.state.rawValue)", "reason": "\(withheld.message)"])
        }
        updateLive { $0.keysWithheldSince = loop.keysWithheldSince }
        setState(withheld.state, message: withheld.message)
    }

    /// The keys are available (again): everything is compared, fetched and sent at once.
    func resumeAfterKeys(loop: inout EngineLoop) {
        guard loop.keysWithheldSince != nil else { return }
        loop.keysWithheldSince = nil
        updateLive { $0.keysWithheldSince = nil }
        logger.notice("encrypted folder's keys are available: resuming", metadata: ["path": "\(configuration.root.path)"])
        inbox.withLock { $0.fullScan = true; $0.fetch = true; $0.send = true; $0.retryNow = true }
    }

    /// What status shows as held while the keys are withheld (`wait` exits 5 for it).
    func keysHeldStatus(items: Int) -> HeldDeletions? {
        guard let withheld = keysWithheld else { return nil }
        let since = published.withLock { $0.live.keysWithheldSince } ?? environment.wallNow()
        return HeldDeletions(reason: withheld.heldReason, message: withheld.message, since: since.date, items: items)
    }
}
