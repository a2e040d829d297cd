import DocSyncCore
import Testing

/// The mass-delete brake as a check over a whole send (SPEC §4a): each line is the folder's
/// counts and safety state, and the exact verdict.
@Suite struct DeletionCheckTests {
    typealias Facts = DeletionCheck.Facts
    static let brake = DeleteBrake()  // 50 % and 100 items, or 10,000
    static let quiet: Duration = .seconds(2)

    static let cases: [(String, Facts, DeletionCheck.Verdict)] = [
        ("nothing pending", Facts(pending: 0, live: 500), .release(settle: false)),
        ("nothing pending after a brake: it lets go", Facts(pending: 0, live: 500, engaged: true), .release(settle: true)),
        ("nothing pending, confirmed", Facts(pending: 0, live: 500, confirmed: true), .release(settle: false)),
        ("one deletion just seen in a big folder: more may follow", Facts(pending: 1, live: 10_000, sinceLastDeletion: .zero),
         .wait(remaining: .seconds(2))),
        ("one deletion in a folder too small for the brake", Facts(pending: 1, live: 50, sinceLastDeletion: .zero), .release(settle: false)),
        ("a small folder emptied: under the minimum", Facts(pending: 99, live: 0, sinceLastDeletion: .zero), .release(settle: false)),
        ("half of 200 at once", Facts(pending: 100, live: 100), .hold(engage: true)),
        ("rm -rf of everything", Facts(pending: 400, live: 0, sinceLastDeletion: .zero), .hold(engage: true)),
        ("just under half", Facts(pending: 100, live: 101), .release(settle: false)),
        ("under half, deletions still arriving", Facts(pending: 60, live: 140, sinceLastDeletion: .milliseconds(500)),
         .wait(remaining: .milliseconds(1_500))),
        ("under half, quiet since", Facts(pending: 60, live: 140, sinceLastDeletion: .seconds(2)), .release(settle: false)),
        ("under half, no deletion seen since the start", Facts(pending: 60, live: 140), .release(settle: false)),
        ("pieces of one rm -rf sent before count",
         Facts(pending: 60, live: 80, sentSinceSettled: 60, sinceLastDeletion: .seconds(5)), .hold(engage: true)),
        ("pieces sent before, more may come", Facts(pending: 10, live: 900, sentSinceSettled: 40, sinceLastDeletion: .zero),
         .wait(remaining: .seconds(2))),
        ("pieces sent before, the rest too few", Facts(pending: 10, live: 900, sentSinceSettled: 40, sinceLastDeletion: .seconds(3)),
         .release(settle: false)),
        ("engaged before: stays held", Facts(pending: 5, live: 1_000, engaged: true), .hold(engage: false)),
        ("confirmed: goes, even past the brake", Facts(pending: 400, live: 0, confirmed: true, engaged: true), .release(settle: false)),
        ("the absolute limit in a huge folder", Facts(pending: 10_000, live: 990_000), .hold(engage: true)),
        ("one under the absolute limit, quiet since", Facts(pending: 9_999, live: 990_000, sinceLastDeletion: .seconds(10)), .release(settle: false)),
        ("under the absolute limit, more could reach it",
         Facts(pending: 9_000, live: 990_000, sinceLastDeletion: .milliseconds(100)), .wait(remaining: .milliseconds(1_900))),
        ("conflict copies a person resolved away: not counted, not waited for",
         Facts(pending: 150, live: 150, askedFor: 150, sinceLastDeletion: .zero), .release(settle: false)),
        ("resolved copies beside an rm -rf: the rm -rf alone reaches the brake",
         Facts(pending: 300, live: 100, askedFor: 100, sinceLastDeletion: .zero), .hold(engage: true)),
        ("resolved copies beside an rm -rf under the brake: only the rest is waited for",
         Facts(pending: 250, live: 150, askedFor: 100, sinceLastDeletion: .zero), .wait(remaining: .seconds(2))),
        ("resolved copies sent before: the few left go",
         Facts(pending: 10, live: 890, sentSinceSettled: 100, askedFor: 100, sinceLastDeletion: .seconds(3)), .release(settle: false)),
        ("a brake engaged before holds resolved copies too, until a person chooses",
         Facts(pending: 150, live: 150, askedFor: 50, engaged: true), .hold(engage: false)),
        ("a share's small folder: its deletions wait for the quiet period all the same",
         Facts(pending: 1, live: 50, sinceLastDeletion: .zero, shared: true), .wait(remaining: .seconds(2))),
        ("a share's deletion, quiet since", Facts(pending: 1, live: 50, sinceLastDeletion: .seconds(2), shared: true), .release(settle: false)),
        ("a share's deletions a person asked for: not waited for",
         Facts(pending: 2, live: 50, askedFor: 2, sinceLastDeletion: .zero, shared: true), .release(settle: false)),
    ]

    @Test(arguments: cases)
    func verdict(_ name: String, _ facts: Facts, _ expected: DeletionCheck.Verdict) {
        #expect(DeletionCheck.verdict(facts, brake: Self.brake, quietPeriod: Self.quiet) == expected, "\(name)")
    }

    @Test func aBrakeTurnedOffNeverHoldsOrWaits() {
        let off = DeleteBrake(percent: 0, minimum: 100)
        for pending in [1, 100, 10_000, 50_000] {
            let facts = Facts(pending: pending, live: 0, sinceLastDeletion: .zero)
            #expect(DeletionCheck.verdict(facts, brake: off, quietPeriod: Self.quiet) == .release(settle: false), "\(pending) deletions")
        }
    }

    /// Seeded: more deletions never turn a hold into a release, and a verdict that waits
    /// always waits less than the quiet period.
    @Test func moreDeletionsNeverReleaseWhatWasHeld() {
        var random = SplitMix64(seed: 24)
        for _ in 0..<3_000 {
            let brake = DeleteBrake(percent: Int(random.next() % 101), minimum: Int(random.next() % 300))
            let since = random.next() % 3 == 0 ? nil : Duration.milliseconds(Int64(random.next() % 4_000))
            let facts = Facts(pending: Int(random.next() % 2_000), live: Int(random.next() % 5_000),
                              sentSinceSettled: Int(random.next() % 500), sinceLastDeletion: since)
            let verdict = DeletionCheck.verdict(facts, brake: brake, quietPeriod: Self.quiet)
            if case .wait(let remaining) = verdict {
                #expect(remaining > .zero && remaining <= Self.quiet, "\(facts)")
            }
            guard case .hold = verdict else { continue }
            var more = facts
            more.pending += 1 + Int(random.next() % 100)
            more.live = max(0, more.live - (more.pending - facts.pending))
            #expect(DeletionCheck.verdict(more, brake: brake, quietPeriod: Self.quiet) == .hold(engage: true),
                    "brake \(brake.description): \(facts) held, \(more) not")
        }
    }
}
