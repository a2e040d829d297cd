import DocSyncCore
import Testing

@Suite struct PointInTimeTests {
    static let now = Timestamp(seconds: 1_800_000_000, nanoseconds: 0)

    /// (text, seconds since 1970 it names when it is `now`)
    static let cases: [(String, Int64)] = [
        ("90s", 1_799_999_910), ("30m", 1_799_998_200), ("2h", 1_799_992_800),
        ("3d", 1_799_740_800), ("1w", 1_799_395_200), ("0h", 1_800_000_000), (" 2h ", 1_799_992_800),
        ("2026-11-20", 1_795_132_800), ("2026-11-20T09:30:00Z", 1_795_167_000),
    ]

    @Test(arguments: cases)
    func parses(_ text: String, _ seconds: Int64) throws {
        #expect(try PointInTime.parse(text, now: Self.now) == Timestamp(seconds: seconds, nanoseconds: 0))
    }

    @Test(arguments: ["", "h", "2", "2y", "-2h", "2.5h", "yesterday", "2026-13-01", "99999999999999999999d"])
    func refuses(_ text: String) {
        #expect(throws: PointInTime.Invalid.self) { try PointInTime.parse(text, now: Self.now) }
    }
}
