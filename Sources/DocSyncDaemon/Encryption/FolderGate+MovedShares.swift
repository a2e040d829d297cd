import DocSyncCore
import DocSyncEngine
import Foundation

/// A share whose owner moved its zone (SPEC §11, §13): the owner turned encryption on for a
/// folder it shares, and the server carried every participant into the encrypted zone.
extension FolderGate {
    /// Every folder attached to a share that the server said moved (`zoneMoved`) is attached
    /// again to the share of the zone it moved to: stopped, its attachment rewritten
    /// (`AttachedShares`), and started there with an index of its own, keeping its files —
    /// they are matched with the records of the new zone, not downloaded again, and what this
    /// device changed meanwhile is sent there. An encrypted zone's keys come once the owner
    /// confirms this account's fingerprint (the folder waits, saying so, until then).
    func followMovedShares() async {
        guard let set = folderSet.withLock({ $0 }) else { return }
        for service in set.all {
            guard let share = service.engine.configuration.share, let target = service.engine.zoneMovedTo, target != share.zone else { continue }
            let moved = ShareName(owner: share.owner, zone: target)
            var folder = service.folder
            folder.share = moved
            if folder.id == share.description { folder.id = moved.description }
            let next: FolderService
            do {
                var attached = try AttachedShares.load(from: daemon.stateDirectory)
                attached.entries.removeAll { $0.share == share || $0.share == moved }
                attached.entries.append(.init(share: moved, path: folder.path.path))
                try attached.save(in: daemon.stateDirectory)
                let keys = ShareKeyService.isEncrypted(moved) ? shareKeySource(for: moved) : nil
                next = try FolderService(folder: folder, daemon: daemon, backend: service.backend, logger: logger,
                                         encryption: keys.map { (moved.zone, $0) }, followingMove: true)
            } catch {
                logger.error("cannot attach the share to the zone it moved to; trying again at the next turn",
                             metadata: ["path": "\(folder.path.path)", "share": "\(share)", "error": "\(error)"])
                continue
            }
            await set.remove(service)
            guard set.add(next, client: nil) else { return }
            logger.notice("the share moved (its owner encrypted it): attached to the zone it moved to, keeping the files",
                          metadata: ["path": "\(folder.path.path)", "from": "\(share)", "to": "\(moved)"])
        }
    }
}
