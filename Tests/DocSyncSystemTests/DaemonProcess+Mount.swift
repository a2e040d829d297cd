import DocSyncFUSE
import DocSyncTestSupport
import Foundation
import Glibc
import Testing

/// An on-demand device's FUSE mount (SPEC §14) as the tests see it: the content directory
/// the engine syncs, the partial cache, and whether the folder's path is mounted.
extension DaemonProcess {
    /// The folder's state: `STATE/folders/Docs` (the one-folder form names the folder after its path).
    var folderStateDirectory: URL { stateDirectory.appendingPathComponent("folders").appendingPathComponent("Docs") }

    /// Where an on-demand folder's engine keeps what is local and a placeholder for the rest.
    var contentDirectory: URL { folderStateDirectory.appendingPathComponent("content") }

    /// Where parts of documents read through the mount are kept (sparse files).
    var partialDirectory: URL { folderStateDirectory.appendingPathComponent("partial") }

    /// The file system types mounted at the folder's path, oldest first, from the mount table.
    var folderMountTypes: [String] { FuseMount.mountTypes(at: folder.path) }

    /// Whether the folder's path is a docsync FUSE mount now.
    var isMounted: Bool { FuseMount.isMounted(at: folder.path) }

    /// Waits until the folder's path is a docsync mount; false when it is not within `timeout`.
    func waitMounted(timeout: Duration = .seconds(30)) async -> Bool {
        await eventually(timeout: timeout, pollEvery: .milliseconds(20)) { self.isMounted }
    }

    /// Detaches whatever the mount table still lists at the folder's path (`umount -l`), so
    /// that nothing is left behind by a test; returns whether there was anything.
    @discardableResult
    func unmountLeftover() async -> Bool {
        guard !folderMountTypes.isEmpty else { return false }
        for _ in folderMountTypes {
            _ = try? await runProcess(URL(fileURLWithPath: "/usr/bin/umount"), ["-l", folder.path])
        }
        return true
    }
}
