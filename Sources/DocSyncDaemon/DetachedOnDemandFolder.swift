import DocSyncCore
import DocSyncFUSE
import Foundation
import Logging

/// What becomes of an on-demand folder whose share ended (SPEC §11, §14): nothing is
/// mounted; the files that are local move from the content directory to the folder's path
/// as plain files; the placeholders of those that are not go, and their paths are kept in
/// the state directory so that `docs-status` lists them, across restarts.
enum DetachedOnDemandFolder {
    /// The message the folder's status gives each document that was not local.
    static let notLocalMessage = "not on this device: the share ended before it was downloaded"

    /// Leaves the folder as plain files (again, harmlessly, after a restart) and returns the
    /// paths of the documents that were not local — `notLocal` the first time, the kept list
    /// afterwards.
    static func leave(content: URL, at root: URL, stateDirectory: URL, notLocal: [String], logger: Logger) throws -> [String] {
        let list = stateDirectory.appendingPathComponent("not-local-when-detached")
        var paths = notLocal
        if let kept = try? String(contentsOf: list, encoding: .utf8) {
            // Written once, when the share ended: the index still has documents kept then
            // (read whole through the mount) as not local.
            paths = kept.split(separator: "\n").map(String.init).sorted()
        } else {
            try (paths.joined(separator: "\n") + "\n").write(to: list, atomically: true, encoding: .utf8)
        }
        guard FileManager.default.fileExists(atPath: content.path) else { return paths }
        for path in paths {
            let item = content.appendingPathComponent(path)
            let placeholder = item.deletingLastPathComponent().appendingPathComponent(OnDemandFileSystem.placeholderName(of: item.lastPathComponent))
            try? FileManager.default.removeItem(at: placeholder)
        }
        OnDemandMountPoint.copyMarker(from: content, to: root)
        try OnDemandMountPoint.moveEntries(from: content, into: root, logger: logger)
        logger.notice("the share ended: the folder is no longer mounted, its local files stay as plain files",
                      metadata: ["path": "\(root.path)", "notLocal": "\(paths.count)"])
        return paths
    }
}
