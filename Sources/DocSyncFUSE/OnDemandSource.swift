import DocSyncCore
import DocSyncEngine
import DocSyncWatcher
import Foundation

/// What the on-demand file system needs of the folder's engine (SPEC §14). `FolderEngine`
/// is one; tests may give another.
public protocol OnDemandSource: Sendable {
    /// The chunks and their offsets of the not-local document at `path`, shown by the
    /// placeholder file whose inode is `placeholderInode`.
    func remoteLayout(of path: RelativePath, placeholderInode: UInt64?) async throws(SyncError) -> RemoteLayout
    /// The verified bytes of `chunks`.
    func remoteChunks(_ chunks: [ChunkRef]) async throws(SyncError) -> [SHA256Digest: Data]
    /// Makes the document at `path` local (its placeholder replaced by its content) and
    /// returns once it is, or throws why it could not be.
    func makeLocal(_ path: RelativePath) async throws(SyncError)
    /// Changes made through the mount, for the engine's next turn.
    func noteLocal(_ events: [WatchEvent])
    /// What `user.docsync.status` says of the item at `path`: `local`, `partial`, `remote`,
    /// `uploading` or `error`; nil for an item the folder does not know (yet).
    func syncState(of path: RelativePath) -> String?
    /// Whether the item at `path` is kept local (`docs-status pin`, `download`).
    func isPinned(_ path: RelativePath) -> Bool
}

extension FolderEngine: OnDemandSource {
    public func makeLocal(_ path: RelativePath) async throws(SyncError) {
        var outcomes = await perform(.makeLocal([path]))
        // Moved through the mount just now: the loop records the move after the action's
        // turn ran it, so the next turn finds the item.
        if outcomes.first?.done == false, outcomes.first?.message == "no such item" { outcomes = await perform(.makeLocal([path])) }
        guard let outcome = outcomes.first, outcome.done else {
            throw SyncError(.serviceUnavailable, "\(path) could not be downloaded: \(outcomes.first?.message ?? "the folder stopped")")
        }
    }

    public func syncState(of path: RelativePath) -> String? {
        guard let item = try? item(at: path) else { return nil }
        if item.downloadingError != nil || item.uploadingError != nil { return "error" }
        if item.downloadingStatus == "notDownloaded" { return "remote" }
        if !item.isUploaded { return "uploading" }
        return "local"
    }
}
