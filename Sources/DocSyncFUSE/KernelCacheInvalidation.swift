import CFuse3
import DocSyncCore
import DocSyncWatcher
import Foundation
import Logging

/// Keeps what the kernel caches of the mount (names, attributes, pages) true to the content
/// directory while the engine changes it from under the mount: remote changes, downloads,
/// evictions, conflict copies (SPEC §14). The content directory (never the mount) is watched;
/// each change tells the kernel to forget the entry and the item's cached pages, so the
/// mount can let the kernel cache names and attributes for long (`cacheSeconds`). Changes
/// made through the mount come back this way too, which costs the kernel a lookup.
final class KernelCacheInvalidation: Sendable {
    let fileSystem: OnDemandFileSystem
    let logger: Logger
    private let watcher: InotifyWatcher

    init(fileSystem: OnDemandFileSystem, logger: Logger) {
        self.fileSystem = fileSystem
        self.logger = logger
        // Every change shows, the engine's own renames into place included; its temporary
        // files never do.
        watcher = InotifyWatcher(root: URL(fileURLWithPath: fileSystem.backing), logger: logger, quietPeriod: .milliseconds(200),
                                 ignoredFilePrefix: IgnoreRules.temporaryFilePrefix)
    }

    /// Starts watching; the returned task ends when `stop()` is called.
    func start() throws(WatcherError) -> Task<Void, Never> {
        let events = try watcher.start()
        let fileSystem = self.fileSystem
        return Task.detached {
            for await event in events {
                switch event {
                case .changed(let path), .directoryAppeared(let path), .removed(let path):
                    fileSystem.invalidate(path)
                case .moved(let from, let to):
                    fileSystem.invalidate(from)
                    fileSystem.invalidate(to)
                case .rescan:
                    fileSystem.invalidateEverything()
                }
            }
        }
    }

    func stop() { watcher.stop() }
}

extension OnDemandFileSystem {
    /// Tells the kernel to look up the item at `path` of the content directory again (a
    /// placeholder's path stands for its item) and to drop its cached pages.
    func invalidate(_ path: String) {
        guard let session = session.withLock({ $0 }) else { return }
        let name = Self.name(of: path), parent = Self.parent(of: path)
        let shown = Self.shownName(ofPlaceholder: name) ?? name
        guard !Self.isHidden(shown), let parentID = nodes.existingID(of: parent) else { return }
        if let id = nodes.existingID(of: Self.join(parent, shown)) {
            let opened = handles.openedInodes(on: id)
            let now = try? backingOf(Self.join(parent, shown)).get().status.st_ino
            if !opened.isEmpty, now.map({ !opened.contains(UInt64($0)) }) ?? true {
                // Replaced (or removed) while open: the open files keep the node, its pages
                // and what they opened, as on a local disk; the name gets a node of its own.
                nodes.remove(parentID, shown)
            } else {
                fuse_lowlevel_notify_inval_inode(session.raw, id, 0, 0)
            }
        }
        _ = fuse_lowlevel_notify_inval_entry(session.raw, parentID, shown, shown.utf8.count)
    }

    /// Tells the kernel to forget every name and cached page it holds of the mount (the
    /// watch lost track of changes).
    func invalidateEverything() {
        guard let session = session.withLock({ $0 }) else { return }
        for (parent, name, id) in nodes.allEntries() {
            fuse_lowlevel_notify_inval_inode(session.raw, id, 0, 0)
            _ = fuse_lowlevel_notify_inval_entry(session.raw, parent, name, name.utf8.count)
        }
    }
}
