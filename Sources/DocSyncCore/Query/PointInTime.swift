import Foundation

/// A moment a person names on the command line (`docs-status recover --since`): an ISO 8601
/// date or date-time (`2026-11-20`, `2026-11-20T09:30:00Z`, as predicate dates), or a time
/// ago — a whole number and a unit: `90s`, `30m`, `2h`, `3d`, `1w`.
public enum PointInTime {
    public struct Invalid: Error, Hashable, Sendable, CustomStringConvertible {
        public let text: String
        public var description: String {
            "\(text.debugDescription) is not a time: write a date (2026-11-20), a date-time (2026-11-20T09:30:00Z) or a time ago (90s, 30m, 2h, 3d, 1w)"
        }
    }

    /// The moment `text` names, relative ones counted back from `now`.
    public static func parse(_ text: String, now: Timestamp) throws(Invalid) -> Timestamp {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let unit = trimmed.last, let seconds = unitSeconds[unit], let count = Int64(trimmed.dropLast()), count >= 0,
           count <= Int64.max / 1_000_000_000 / seconds {
            return Timestamp(nanosecondsSince1970: now.nanosecondsSince1970 - count * seconds * 1_000_000_000)
        }
        do { return try ISO8601Timestamp.parse(trimmed) } catch { throw Invalid(text: text) }
    }

    private static let unitSeconds: [Character: Int64] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800]
}
