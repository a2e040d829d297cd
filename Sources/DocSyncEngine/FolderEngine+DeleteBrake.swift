import DocSyncCore
import Foundation
import GRDB

/// The mass-delete brake (SPEC §4a) in the engine: before a turn sends, `DeletionCheck`
/// looks over every local deletion the send would carry out (with those sent since the
/// folder last settled) and the gate it returns decides whether they go with the rest;
/// everything else keeps syncing.
extension FolderEngine {
    /// Whether pending local deletions may be sent now.
    enum DeletionGate: Equatable, Sendable {
        case release
        /// Not yet: more deletions may be on their way (an `rm -rf` the watcher delivers in
        /// pieces), and together they could reach the brake.
        case wait(until: ContinuousClock.Instant)
        /// The brake holds them until a person confirms.
        case hold
    }

    /// How long after the last local deletion seen the deletions wait before they are
    /// sent, when together with more they could reach the brake.
    static let deletionQuietPeriod: Duration = .seconds(2)

    /// Decides the gate over everything pending (`DeletionCheck`), from the index's counts
    /// and the safety state, and carries out what the verdict says: engaging the brake, or
    /// letting it go, is stored and told. `lastLocalDeletion` is when the loop last saw
    /// local deletions (`EngineLoop.lastLocalDeletion`).
    func decideDeletionGate(lastLocalDeletion: ContinuousClock.Instant?) -> DeletionGate {
        if keepsChangesLocal {
            // A read-only participant's deletions are never sent: the files come back
            // (`keepReadOnlyChanges`), so the brake neither counts nor holds them (SPEC §11).
            updateLive { $0.deletionGate = .release }
            return .release
        }
        let counts = (try? index.readLatest { db in try DeletionCounts.fetch(db) }) ?? DeletionCounts()
        let state = published.withLock { $0.safety }
        let now = environment.now()
        let facts = DeletionCheck.Facts(pending: counts.pending, live: counts.live, sentSinceSettled: state.deletionsSentSinceSettled,
                                        askedFor: state.deletionsAskedFor, confirmed: state.deletionsConfirmed, engaged: state.brakeEngagedAt != nil,
                                        sinceLastDeletion: lastLocalDeletion.map { now - $0 }, shared: configuration.share != nil)
        let gate: DeletionGate
        switch DeletionCheck.verdict(facts, brake: configuration.deleteBrake, quietPeriod: FolderEngine.deletionQuietPeriod) {
        case .release(let settle):
            if settle { updateSafety { $0.brakeEngagedAt = nil } }
            gate = .release
        case .wait(let remaining):
            gate = .wait(until: now + remaining)
        case .hold(let engage):
            if engage {
                updateSafety { $0.brakeEngagedAt = environment.wallNow() }
                let deletions = facts.pending + facts.sentSinceSettled
                logger.warning("mass deletion held: confirm with 'docs-status deletions --confirm' or bring the files back with '--restore'",
                               metadata: ["path": "\(configuration.root.path)", "deletions": "\(deletions)", "items": "\(facts.live + deletions)",
                                          "brake": "\(configuration.deleteBrake.description)"])
            }
            gate = .hold
        }
        updateLive { $0.deletionGate = gate }
        return gate
    }

    /// The gate as last decided.
    var deletionGate: DeletionGate { published.withLock { $0.live.deletionGate } }

    /// The condition on `item` rows that are sent now: saves, and deletions unless the gate
    /// keeps them back.
    var sendableCondition: String { Self.sendableCondition(deletionsReleased: deletionGate == .release) }

    /// The condition on `item` rows waiting to be sent: saves that did not fail, and
    /// deletions when `deletionsReleased`. `pending != 0` stays a term of its own, so SQLite
    /// uses the partial indexes `item_pending` (counts) and `item_sendable` (pages).
    static func sendableCondition(deletionsReleased: Bool) -> String {
        deletionsReleased ? "pending != 0 AND uploadingError IS NULL" : "pending != 0 AND pending != 2 AND uploadingError IS NULL"
    }

    /// The server confirmed `count` local deletions.
    func noteDeletionsSent(_ count: Int) {
        guard count > 0 else { return }
        updateSafety { $0.deletionsSentSinceSettled += count }
    }

    /// A person asked for `count` local deletions by name (conflict copies they resolved
    /// away): the brake lets them go uncounted.
    func noteDeletionsAskedFor(_ count: Int) {
        guard count > 0 else { return }
        updateSafety { $0.deletionsAskedFor += count }
    }

    /// The folder settled with nothing pending: counting starts again.
    func settleDeletionCount() {
        updateSafety { state in
            state.deletionsSentSinceSettled = 0
            state.deletionsAskedFor = 0
            state.deletionsConfirmed = false
            state.brakeEngagedAt = nil
        }
    }

    /// What the brake holds, for status.
    func heldDeletionsStatus(_ state: SafetyState) -> HeldDeletions? {
        guard let since = state.brakeEngagedAt, !state.deletionsConfirmed else { return nil }
        let counts = (try? index.readLatest { db in try DeletionCounts.fetch(db) }) ?? DeletionCounts()
        guard counts.pending > 0 else { return nil }
        let of = counts.live + counts.pending + state.deletionsSentSinceSettled
        let message = "\(counts.pending) local deletion\(counts.pending == 1 ? "" : "s") held by the mass-delete brake "
            + "(\(counts.pending + state.deletionsSentSinceSettled) of \(of) items, brake at \(configuration.deleteBrake.description)); "
            + "the other devices keep the files. Send them with 'docs-status deletions --confirm', or bring the files back with '--restore'"
        return HeldDeletions(reason: HeldDeletions.brake, message: message, since: since.date, items: counts.pending, ofItems: of)
    }
}

/// Pending local deletions and live items, from the index.
struct DeletionCounts {
    var pending = 0
    var live = 0

    /// Reads the pending deletions from their index; the whole count only when there are any.
    static func fetch(_ db: Database) throws -> DeletionCounts {
        let pending = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE pending = 2") ?? 0
        guard pending > 0 else { return DeletionCounts() }
        let all = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item") ?? pending
        return DeletionCounts(pending: pending, live: all - pending)
    }
}
