import DocSyncControl
import DocSyncCore
import DocSyncHTTP
import Foundation

/// Sharing (SPEC §11) through the account's docsync-server: the owner's view and changes of
/// a folder's share, and the shares offered to the account.
extension DaemonControlHandler {
    /// The share of the folder named by `path` (its path or id), after `change` when given.
    /// For an encrypted folder (SPEC §13): a change naming a `fingerprint` first confirms
    /// that participant's keys (refused, changing nothing, when the code does not match),
    /// and invites it only when it has no open part yet; after any change the folder's keys
    /// are brought up to date at once (wrapped for a confirmed participant, a new epoch
    /// after a removal). Each participant is listed with where its keys stand.
    func share(_ path: String, change: ShareChange?) async throws -> ControlResponse {
        let folder = try folder(named: path)
        let zone = folder.engine.configuration.zone, client = try sharingClient()
        let encrypted = folder.engine.configuration.encryption != nil && folder.engine.configuration.share == nil
        var answer: WireBody.Share?
        if var change {
            if let code = change.fingerprint {
                guard encrypted else {
                    throw HandlerFailure(ControlResponse.FailureCode.invalidArguments, "\(folder.root.path) is not encrypted: its participants have no fingerprint to confirm")
                }
                guard change.action == .invite, change.participants.count == 1 else {
                    throw HandlerFailure(ControlResponse.FailureCode.invalidArguments, "--fingerprint goes with --with and one account: docs-status share FOLDER --with NAME --fingerprint CODE")
                }
                try await shareKeys.confirm(change.participants[0], code: code)
                change.fingerprint = nil
                // Confirming an account that takes part already invites nothing (its permission stays).
                let current = try await client.share(of: zone)
                if current.participants.contains(where: { $0.participant == change.participants[0] && $0.status.isOpen }) {
                    change.participants = []
                    answer = current
                }
            }
            if !change.participants.isEmpty || change.action == .stop { answer = try await client.changeShare(of: zone, change) }
            if encrypted { await folderGate.turn(refreshing: false) }
        }
        let shown: WireBody.Share
        if let answer { shown = answer } else { shown = try await client.share(of: zone) }
        folder.engine.noteOwnShare(shown.share, entries: shown.participants)
        return .share(share: shown.share, participants: encrypted ? shareKeys.annotatingOwn(shown.participants) : shown.participants)
    }

    /// Leaves the share the folder named by `path` is attached to (`FolderEngine.leaveShare`).
    func leave(_ path: String) async throws -> ShareEntry {
        let folder = try folder(named: path)
        guard folder.engine.configuration.share != nil else {
            throw HandlerFailure(ControlResponse.FailureCode.notFound, "\(folder.root.path) is a folder of this account's own, not a share; to stop sharing it: docs-status share FOLDER --stop")
        }
        return try await folder.engine.leaveShare()
    }

    /// Accepts `share` (when still an invitation) and attaches it at the absolute `path`
    /// (SPEC §11): a path that is not absent or empty, or that lies inside or around a synced
    /// folder, is refused (`badFolder`) before anything is asked or made. The attachment is
    /// kept (`AttachedShares`) and the folder starts syncing at once. Returns the account's
    /// entry in the share.
    func accept(_ share: ShareName, at path: String) async throws -> ShareEntry {
        let root = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
        if let attached = folders.first(where: { $0.engine.configuration.share == share }) {
            throw HandlerFailure(ControlResponse.FailureCode.badFolder, "the share \(share) is attached on this device already, at \(attached.root.path)")
        }
        for folder in folders {
            if let how = ConfigurationLoader.overlap(root.path, folder.root.path) {
                throw HandlerFailure(ControlResponse.FailureCode.badFolder,
                                     "\(root.path) \(how) the synced folder \(folder.root.path); a share attaches to a folder of its own")
            }
        }
        do { _ = try FolderService.checkAttachable(share, at: root) } catch let error as DaemonError {
            throw HandlerFailure(ControlResponse.FailureCode.badFolder, error.description)
        }
        let client = try sharingClient()
        guard var entry = try await client.shareEntry(share) else {
            throw HandlerFailure(ControlResponse.FailureCode.notFound, "no share \(share) is offered to this account; docs-status shares lists those that are")
        }
        switch entry.status {
        case .invited: entry = try await client.answerShare(share, .accept)
        case .accepted: break
        default:
            throw HandlerFailure("shareEnded", "the share \(share) is \(entry.status.rawValue) for this account; \(share.owner) must invite it again")
        }
        let folder = FolderConfiguration.attaching(share, at: root)
        // A state left by an earlier attachment (left, removed) is kept aside, not reused.
        let state = FolderService.stateDirectory(of: folder, in: configuration)
        if FileManager.default.fileExists(atPath: state.path) {
            let aside = state.deletingLastPathComponent().appendingPathComponent("\(state.lastPathComponent).detached-\(Int(Date().timeIntervalSince1970))")
            try FileManager.default.moveItem(at: state, to: aside)
        }
        let participant = try client.reaching(owner: share.owner)
        let service: FolderService
        do {
            service = try FolderService(folder: folder, daemon: configuration, backend: participant, logger: logger,
                                        encryption: ShareKeyService.isEncrypted(share) ? (share.zone, shareKeys.source(for: share)) : nil)
        } catch let error as DaemonError {
            await participant.shutdown()
            throw HandlerFailure(ControlResponse.FailureCode.badFolder, error.description)
        }
        var attached = try AttachedShares.load(from: configuration.stateDirectory)
        attached.entries.removeAll { $0.share == share }
        attached.entries.append(.init(share: share, path: root.path))
        try attached.save(in: configuration.stateDirectory)
        guard folderSet.add(service, client: participant) else {
            await participant.shutdown()
            throw HandlerFailure("stopping", "docsyncd is stopping; the share is attached when it starts again")
        }
        logger.notice("attached the share", metadata: ["share": "\(share)", "path": "\(root.path)"])
        if ShareKeyService.isEncrypted(share) {
            await folderGate.turn(refreshing: false)
            return shareKeys.annotatingOffered([entry])[0]
        }
        return entry
    }

    /// The account's docsync-server client; `unsupported` for a `file://` backend, which
    /// keeps one person's folders and has no one to share with.
    func sharingClient() throws(HandlerFailure) -> HTTPBackend {
        guard let client = backend as? HTTPBackend else {
            throw HandlerFailure(ControlResponse.FailureCode.unsupported,
                                 "folders are shared through a docsync-server; this daemon syncs through \(configuration.backend.url.absoluteString)")
        }
        return client
    }
}
