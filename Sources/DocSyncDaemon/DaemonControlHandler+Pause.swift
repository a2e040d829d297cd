import DocSyncControl
import Foundation

/// `docs-status pause` and `resume` (SPEC §15).
extension DaemonControlHandler {
    /// The folders `pause`/`resume` act on: the one named (by path or id), or all.
    func pausable(_ folder: String?) throws -> [FolderService] {
        guard let folder else { return folders }
        let path = URL(fileURLWithPath: folder).standardizedFileURL.path
        let named = folders.filter { $0.root.path == path || $0.folder.id == folder || $0.engine.configuration.zone.name == folder }
        guard !named.isEmpty else {
            throw HandlerFailure(ControlResponse.FailureCode.notFound, "no synced folder \(folder); docs-status lists the folders")
        }
        return named
    }
}
