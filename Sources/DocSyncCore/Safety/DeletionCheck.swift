/// The mass-delete brake (SPEC §4a) as a check over the whole of what a send would carry
/// out, decided before any of it goes — pure, so every case is a line of a table.
///
/// A send's plan holds the local deletions not yet sent (`Facts.pending`); together with
/// those sent since the folder last settled they are one deletion as a person sees it (an
/// `rm -rf` the watcher delivers in pieces). The check releases them, makes them wait for
/// the rest of what may be a mass deletion, or holds them until a person confirms;
/// everything else in the plan goes whatever the verdict.
public enum DeletionCheck {
    /// What the check looks at.
    public struct Facts: Hashable, Sendable {
        /// Local deletions waiting to be sent.
        public var pending: Int
        /// Items of the folder that are not pending deletions.
        public var live: Int
        /// Local deletions sent since the folder last settled.
        public var sentSinceSettled: Int
        /// Of the deletions pending or sent since the folder last settled, those a person
        /// asked for by name (a conflict copy `docs-status resolve` dropped): they go
        /// without counting toward the brake.
        public var askedFor: Int
        /// A person confirmed the held deletions (until the folder settles).
        public var confirmed: Bool
        /// The brake already holds the pending deletions.
        public var engaged: Bool
        /// How long ago the last local deletion was seen (`nil`: none since the engine started).
        public var sinceLastDeletion: Duration?
        /// The folder is a share on a participant's device (SPEC §11): its deletions always
        /// wait for the quiet period, so that the share's root deleted with everything in it
        /// is seen as the held folder it is before any piece of it goes.
        public var shared: Bool

        public init(pending: Int, live: Int, sentSinceSettled: Int = 0, askedFor: Int = 0, confirmed: Bool = false,
                    engaged: Bool = false, sinceLastDeletion: Duration? = nil, shared: Bool = false) {
            self.shared = shared
            self.pending = pending
            self.live = live
            self.sentSinceSettled = sentSinceSettled
            self.askedFor = askedFor
            self.confirmed = confirmed
            self.engaged = engaged
            self.sinceLastDeletion = sinceLastDeletion
        }
    }

    public enum Verdict: Hashable, Sendable {
        /// Send the deletions with the rest. `settle`: nothing is pending, and a brake
        /// engaged before lets go (its deletions were restored or sent).
        case release(settle: Bool)
        /// Not yet: more deletions may be on their way, and with them the whole could reach
        /// the brake. Look again after `remaining`; the rest of the plan goes.
        case wait(remaining: Duration)
        /// The brake holds the deletions until a person confirms them (`engage`: it engages
        /// now, and that is recorded and told); the rest of the plan goes.
        case hold(engage: Bool)
    }

    /// The verdict over `facts` for a folder whose brake is `brake`; deletions wait for
    /// `quietPeriod` after the last one seen when, with more, they could reach the brake.
    public static func verdict(_ facts: Facts, brake: DeleteBrake, quietPeriod: Duration) -> Verdict {
        guard facts.pending > 0 else { return .release(settle: facts.engaged) }
        if facts.confirmed { return .release(settle: false) }
        if facts.engaged { return .hold(engage: false) }
        let items = facts.live + facts.pending + facts.sentSinceSettled
        // What a person asked for by name is no deletion they did not mean.
        let deletions = max(0, facts.pending + facts.sentSinceSettled - facts.askedFor)
        guard deletions > 0 else { return .release(settle: false) }
        if facts.shared, let since = facts.sinceLastDeletion, since < quietPeriod { return .wait(remaining: quietPeriod - since) }
        // Deleting everything would not reach the brake: nothing to wait for.
        guard brake.engages(deletions: items, items: items) else { return .release(settle: false) }
        if brake.engages(deletions: deletions, items: items) { return .hold(engage: true) }
        if let since = facts.sinceLastDeletion, since < quietPeriod { return .wait(remaining: quietPeriod - since) }
        return .release(settle: false)
    }
}
