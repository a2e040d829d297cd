import DocSyncCore
import Foundation
import GRDB

/// Held folders (SPEC §4a): before any work, the engine looks at the folder's root; while
/// the root is missing, is not a directory or lacks the marker of the indexed folder, and
/// the index holds items, nothing is sent and nothing is written.
extension FolderEngine {
    /// What the root allows now.
    enum RootCheck: Equatable {
        case proceed
        case held(FolderHold.Reason)
        /// Nothing at stake, but no folder to sync (a path that does not exist yet).
        case waiting(String)
    }

    /// Looks at the root (its `stat` and its marker's; when they changed since the root was
    /// last found right, the marker file and at most one directory entry beyond it — never
    /// the folder's files) and decides, writing or adopting a marker when
    /// the verdict says so. Records a hold (and its end) in the persisted safety state.
    func checkRoot(loop: inout EngineLoop) -> RootCheck {
        let root = configuration.root.path
        // Two `stat`s when nothing changed since the root was last found right.
        let fingerprint = RootMarker.fingerprint(root, in: fileSystem)
        if let fingerprint, loop.rootSeenRight == fingerprint { return .proceed }
        let check = lookAtRoot(root)
        loop.rootSeenRight = check == .proceed ? fingerprint : nil
        return check
    }

    private func lookAtRoot(_ root: String) -> RootCheck {
        let observed = RootMarker.observe(root, in: fileSystem)
        let recorded = published.withLock { $0.safety.markerInstance }
        let hasItems = (try? index.readLatest { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM item)") }) ?? true
        switch FolderHold.verdict(root: observed, recorded: recorded, indexedItems: hasItems == true ? 1 : 0, newInstance: environment.newRecordName()) {
        case .proceed:
            endHold()
            return .proceed
        case .writeMarker(let instance):
            do throws(SyncError) {
                try RootMarker.write(instance: instance, zone: configuration.zone, into: root, modified: environment.wallNow(), in: fileSystem)
            } catch {
                return .waiting("cannot write the folder's marker: \(error.message)")
            }
            updateSafety { $0.markerInstance = instance }
            logger.info("marked the folder's root", metadata: ["path": "\(root)/\(RootMarker.name)"])
            endHold()
            return .proceed
        case .adoptMarker(let instance):
            updateSafety { $0.markerInstance = instance }
            endHold()
            return .proceed
        case .waitForRoot:
            return .waiting("\(root) does not exist or is not a directory; create it or fix the configured path (docsyncd never creates it)")
        case .held(let reason):
            beginHold(reason)
            return .held(reason)
        }
    }

    /// Records that the folder is held for `reason` (once: the time stays that of the start).
    private func beginHold(_ reason: FolderHold.Reason) {
        let started = updateSafety { state -> Bool in
            guard state.heldReason != reason else { return false }
            state.heldReason = reason
            state.heldSince = state.heldSince ?? environment.wallNow()
            return true
        }
        if started {
            logger.warning("folder held: nothing is sent or written until it is back or a person chooses",
                           metadata: ["path": "\(configuration.root.path)", "reason": "\(reason.rawValue)"])
        }
    }

    /// Records that the folder is no longer held; a folder coming back is compared whole.
    private func endHold() {
        let ended = updateSafety { state -> Bool in
            guard state.heldReason != nil else { return false }
            state.heldReason = nil
            state.heldSince = nil
            return true
        }
        if ended {
            logger.notice("folder back: resuming", metadata: ["path": "\(configuration.root.path)"])
            // Status says so at once, not after the full scan and fetch this turn starts
            // (on a loaded machine or a large folder, long after the folder came back).
            setState(.scanning, message: "the folder is back: comparing it with what was synced")
            inbox.withLock { $0.fullScan = true; $0.fetch = true; $0.send = true }
        }
    }

    /// Changes the safety state and stores it in the index (a failed store is logged: the
    /// state in memory stays right, and is stored again with the next change).
    @discardableResult
    func updateSafety<T>(_ change: (inout SafetyState) -> T) -> T {
        let (result, state, changed) = published.withLock { published in
            let before = published.safety
            let result = change(&published.safety)
            return (result, published.safety, published.safety != before)
        }
        if changed {
            do { try index.write { db in try db.setEngineValue(SafetyState.key, state.encoded) } } catch {
                logger.error("cannot store the deletion-safety state", metadata: ["error": "\(error)"])
            }
        }
        return result
    }

    /// What a held folder holds, for status: the items at stake.
    func heldFolderStatus(_ state: SafetyState, items: Int) -> HeldDeletions? {
        guard let reason = state.heldReason else { return nil }
        return HeldDeletions(reason: reason.rawValue, message: reason.explanation(root: configuration.root.path, items: items),
                             since: (state.heldSince ?? environment.wallNow()).date, items: items)
    }
}
