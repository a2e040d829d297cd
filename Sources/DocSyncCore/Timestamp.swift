import Foundation

/// A file modification time with nanosecond precision, as POSIX `struct timespec` has it.
///
/// Stored as whole nanoseconds since 1970-01-01T00:00:00Z so it survives JSON and SQLite
/// round trips exactly (a `Date` would not). The core never reads the clock: a caller passes
/// the time in (`Timestamp.now`, from DocSyncPlatform, reads the system's).
public struct Timestamp: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public let nanosecondsSince1970: Int64

    public init(nanosecondsSince1970: Int64) { self.nanosecondsSince1970 = nanosecondsSince1970 }

    public init(seconds: Int64, nanoseconds: Int64) {
        self.nanosecondsSince1970 = seconds * 1_000_000_000 + nanoseconds
    }

    public init(_ date: Date) {
        self.nanosecondsSince1970 = Int64((date.timeIntervalSince1970 * 1e9).rounded())
    }

    /// Whole seconds (floor) and the nanoseconds within that second, as `timespec` wants them.
    public var secondsAndNanoseconds: (seconds: Int64, nanoseconds: Int64) {
        let seconds = nanosecondsSince1970.quotientRoundingDown(by: 1_000_000_000)
        return (seconds, nanosecondsSince1970 - seconds * 1_000_000_000)
    }

    public var date: Date { Date(timeIntervalSince1970: Double(nanosecondsSince1970) / 1e9) }

    public init(from decoder: any Decoder) throws {
        nanosecondsSince1970 = try decoder.singleValueContainer().decode(Int64.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(nanosecondsSince1970)
    }

    public var description: String { date.formatted(.iso8601) }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.nanosecondsSince1970 < rhs.nanosecondsSince1970 }
}

extension Int64 {
    fileprivate func quotientRoundingDown(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor < 0) ? quotient - 1 : quotient
    }
}
