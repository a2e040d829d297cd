import DocSyncCore
import Testing

@Suite struct DeleteBrakeTests {
    /// (percent, minimum, deletions, items, engages)
    static let cases: [(Int, Int, Int, Int, Bool)] = [
        (50, 100, 0, 0, false),
        (50, 100, 99, 100, false),     // all but one, yet under the minimum
        (50, 100, 100, 100, true),     // everything, at the minimum
        (50, 100, 100, 200, true),     // exactly half, at the minimum
        (50, 100, 99, 198, false),     // half, one under the minimum
        (50, 100, 100, 201, false),    // at the minimum, just under half
        (50, 100, 950, 1_000, true),   // rm -rf of 19 of 20 subfolders
        (50, 100, 9_999, 100_000, false),
        (50, 100, 10_000, 1_000_000, true),  // the absolute limit, whatever the share
        (0, 100, 10_000, 10_000, false),     // 0 % turns the brake off
        (0, 0, 1, 1, false),
        (100, 1, 1, 1, true),
        (100, 1, 1, 2, false),
        (10, 5, 5, 50, true),
        (10, 5, 5, 51, false),
        (50, 0, 1, 2, true),           // no minimum: half of a tiny folder
        (50, 100, 150, 0, true),       // items unknown (0): the deletions are the folder
    ]

    @Test(arguments: cases)
    func engages(_ percent: Int, _ minimum: Int, _ deletions: Int, _ items: Int, _ expected: Bool) {
        let brake = DeleteBrake(percent: percent, minimum: minimum)
        #expect(brake.engages(deletions: deletions, items: items) == expected,
                "brake \(brake.description): \(deletions) of \(items)")
    }

    @Test func moreDeletionsNeverReleaseTheBrake() {
        var random = SplitMix64(seed: 23)
        for _ in 0..<2_000 {
            let brake = DeleteBrake(percent: Int(random.next() % 101), minimum: Int(random.next() % 300))
            let items = Int(random.next() % 30_000)
            let deletions = Int(random.next() % UInt64(items + 1))
            if brake.engages(deletions: deletions, items: items) {
                #expect(brake.engages(deletions: min(items, deletions + 1 + Int(random.next() % 50)), items: items),
                        "brake \(brake.description), \(deletions) of \(items)")
            }
        }
    }
}
