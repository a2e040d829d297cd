import DocSyncControl
import DocSyncCore
import DocSyncHTTP
import Foundation

/// Sharing (SPEC §11) through the account's docsync-server: the owner's view and changes of
/// a folder's share, and the shares offered to the account.
extension DaemonControlHandler {
    /// The share of the folder named by `path` (its path or id), after `change` when given.
    func share(_ path: String, change: ShareChange?) async throws -> ControlResponse {
        let folder = try folder(named: path)
        let zone = folder.engine.configuration.zone, client = try sharingClient()
        let answer = if let change {
            try await client.changeShare(of: zone, change)
        } else {
            try await client.share(of: zone)
        }
        folder.engine.noteOwnShare(answer.share, entries: answer.participants)
        return .share(share: answer.share, participants: answer.participants)
    }

    /// Leaves the share the folder named by `path` is attached to (`FolderEngine.leaveShare`).
    func leave(_ path: String) async throws -> ShareEntry {
        let folder = try folder(named: path)
        guard folder.engine.configuration.share != nil else {
            throw HandlerFailure(ControlResponse.FailureCode.notFound, "\(folder.root.path) is a folder of this account's own, not a share; to stop sharing it: docs-status share FOLDER --stop")
        }
        return try await folder.engine.leaveShare()
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
