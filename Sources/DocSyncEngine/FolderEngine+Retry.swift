import DocSyncCore
import DocSyncStorage
import Foundation

/// How the loop meets a failed step: SPEC §5's behaviour for each error code, with backoff.
extension FolderEngine {
    /// Loop-local bookkeeping of failures.
    struct RetryState: Sendable {
        var attempt = 0
        /// The backend is not called again before this instant.
        var notBefore: ContinuousClock.Instant?
        var fetchOwed = false
        /// The zone must be created (again) before anything else.
        var zoneMissing = false
        /// The folder's place in its share is asked before anything else (`refreshSharing`):
        /// at start, on a push, and when a shared folder's zone did not answer.
        var sharingCheckOwed = false
        mutating func succeeded() {
            attempt = 0
            notBefore = nil
        }
    }

    /// SPEC §5: one behaviour per error code.
    func handle(_ error: SyncError, retry: inout RetryState) {
        var generator = EnvironmentRandom(source: environment.random)
        retry.attempt += 1
        let backoff = configuration.retryPolicy.delay(attempt: retry.attempt, after: error, using: &generator)
        let now = environment.now()
        switch ErrorDisposition.of(error) {
        case .retryWithBackoff, .retryAfterDelay:
            setState(.offline, message: "backend unavailable: \(error.message)")
            retry.notBefore = now + backoff
            logger.warning("backend unavailable; work stays queued", metadata: ["error": "\(error)", "retryIn": "\(backoff)"])
        case .createZoneAndResend where configuration.share != nil, .recreateZoneAndReupload where configuration.share != nil:
            // A participant never creates or uploads the owner's zone again: the folder is
            // held, and asked again later (SPEC §11). One detached meanwhile (a person left)
            // expects a zone that no longer answers.
            guard published.withLock({ $0.safety.shareEnded == nil }) else { return }
            let started = updateSafety { state -> Bool in
                guard state.shareUnavailableSince == nil else { return false }
                state.shareUnavailableSince = environment.wallNow()
                return true
            }
            if started {
                logger.warning("the shared folder's zone does not answer; held, nothing is sent, written or deleted",
                               metadata: ["share": "\(configuration.share.map(\.description) ?? "")", "error": "\(error.message)"])
            }
            // Kept while the zone is asked again: a retry's fetch does not read as "syncing".
            setState(.held, message: configuration.share.map { FolderStatus.shareUnavailable($0, items: indexedItemCount()) },
                     waitsOnTheBackend: true)
            retry.fetchOwed = true
            retry.sharingCheckOwed = true
            retry.notBefore = retry.attempt > 1 ? now + min(backoff, .seconds(30)) : nil
        case .createZoneAndResend, .recreateZoneAndReupload:
            retry.zoneMissing = true
            retry.fetchOwed = true
            if retry.attempt > 1 { retry.notBefore = now + backoff }
        case .refetchFromScratch:
            _ = try? index.write { db in try db.setChangeToken(nil) }
            retry.fetchOwed = true
            logger.notice("change token expired; fetching everything again")
        case .pauseUploads:
            setState(.error, message: FolderStatus.storageFull(error.quota), waitsOnTheBackend: true)
            // Space frees without telling (a purge elsewhere, a larger quota): look again at
            // least every half minute.
            retry.notBefore = now + min(backoff, .seconds(30))
            logger.error("storage full; uploads paused, everything is kept on this device", metadata: ["error": "\(error.message)"])
        case .stopUntilSignedIn:
            setState(.error, message: FolderStatus.notAuthenticated, waitsOnTheBackend: true)
            retry.notBefore = now + backoff
            logger.error("not authenticated; sync stopped, everything is kept on this device", metadata: ["error": "\(error.message)"])
        case .keepLocal where configuration.share != nil:
            // A send refused (the share became read-only, the push not here yet): from now
            // on the changes stay here and the shared versions come back, at once; the next
            // push asks the share list again.
            learnReadOnly()
            retry.notBefore = nil
            inbox.withLock { $0.send = true }
        case .keepLocal:
            // Refused on a folder of this account's own: nothing loops; the next push or
            // safety-net pass looks again.
            setState(.error, message: FolderStatus.readOnlyShare, waitsOnTheBackend: true)
            retry.notBefore = now + max(backoff, .seconds(30))
            logger.notice("the backend refused a change as not permitted; changes stay on this device", metadata: ["error": "\(error.message)"])
        case .followMovedZone:
            // The zone is a redirect now (SPEC §13): nothing more is sent into it or fetched
            // from it; the files stay as they are until the folder starts in the new zone.
            updateLive { $0.movedTo = error.movedTo ?? configuration.zone }
            setState(.syncing, message: FolderStatus.zoneMoved, waitsOnTheBackend: true)
            retry.notBefore = now + .seconds(3600)
            logger.notice("the folder's zone was moved into an encrypted zone; following it",
                          metadata: ["path": "\(configuration.root.path)", "to": "\(error.movedTo?.name ?? "?")"])
        case .rereadLater, .mergeAndResend, .handleEachItem, .splitAndResend, .itemError:
            // Per-item outcomes are handled where they arise; reaching here means a pass was
            // cut short (a file changed while being read, a corrupt chunk): try again soon.
            retry.notBefore = now + backoff
            logger.notice("sync pass interrupted; trying again", metadata: ["error": "\(error)", "retryIn": "\(backoff)"])
        }
    }

    /// The shared folder's zone answered again: the hold ends and what waited is sent.
    func endShareHold() {
        let ended = updateSafety { state -> Bool in
            guard state.shareUnavailableSince != nil else { return false }
            state.shareUnavailableSince = nil
            return true
        }
        if ended {
            logger.notice("the shared folder's zone answers again; resuming", metadata: ["path": "\(configuration.root.path)"])
            inbox.withLock { $0.send = true }
        }
    }
}
