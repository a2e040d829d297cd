import Foundation
import Synchronization

/// The identity of a record: its zone and its record name.
///
/// A record name is a stable id for one item for its whole life: a rename or a move
/// changes the record's `path` field, never its name. Names are 1–255 bytes of
/// printable ASCII without `/` or `\`; `RecordID.newName()` makes a fresh one.
public struct RecordID: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public let zone: ZoneID
    public let recordName: String

    /// Accepts a valid record name, or throws `.invalidArguments` saying what is wrong.
    public init(zone: ZoneID, validating recordName: String) throws(SyncError) {
        if let problem = RecordID.problem(with: recordName) {
            throw SyncError(.invalidArguments, "record name \(recordName.debugDescription) \(problem)")
        }
        self.zone = zone
        self.recordName = recordName
    }

    /// For names known to be valid (generated or literal). Traps otherwise.
    public init(zone: ZoneID, recordName: String) {
        precondition(RecordID.problem(with: recordName) == nil, "invalid record name \(recordName.debugDescription)")
        self.zone = zone
        self.recordName = recordName
    }

    private enum CodingKeys: String, CodingKey { case zone, recordName }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        zone = try container.decode(ZoneID.self, forKey: .zone)
        let name = try container.decode(String.self, forKey: .recordName)
        if let problem = RecordID.problem(with: name) {
            throw DecodingError.dataCorruptedError(forKey: .recordName, in: container, debugDescription: "record name \(problem)")
        }
        recordName = name
    }

    public var description: String { "\(zone.name)/\(recordName)" }

    public static func < (lhs: RecordID, rhs: RecordID) -> Bool {
        lhs.zone != rhs.zone ? lhs.zone < rhs.zone : lhs.recordName < rhs.recordName
    }

    /// A fresh record name: 32 lowercase hex characters. The first 16 are the time of making
    /// (milliseconds since 1970, then a counter within the millisecond), the last 16 are
    /// random. Names made later in this process sort after earlier ones, so tables keyed by
    /// record name (here and in the backend) grow at their end instead of at random places;
    /// across processes and machines only the random half keeps names apart.
    public static func newName() -> String {
        var generator = SystemRandomNumberGenerator()
        let words = (NameClock.next(), generator.next())
        let digits = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: 32) { buffer in
            for (index, word) in [words.0, words.1].enumerated() {
                for nibble in 0..<16 {
                    buffer[index * 16 + nibble] = digits[Int(truncatingIfNeeded: word >> UInt64(60 - nibble * 4)) & 0xf]
                }
            }
            return 32
        }
    }

    /// Why `name` is not a valid record name, or `nil` when it is.
    public static func problem(with name: String) -> String? {
        if name.isEmpty { return "is empty" }
        if name.utf8.count > 255 { return "is longer than 255 bytes" }
        if name == "." || name == ".." { return "is a relative path component" }
        for byte in name.utf8 where byte < 0x21 || byte > 0x7e || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\\") {
            return "contains a byte outside printable ASCII or a path separator (0x\(String(byte, radix: 16)))"
        }
        return nil
    }
}

/// The time half of `RecordID.newName()`: milliseconds since 1970 shifted left by 16 bits,
/// plus a counter, strictly increasing within the process even when the clock steps back.
private enum NameClock {
    private static let last = Mutex<UInt64>(0)

    static func next() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let milliseconds = UInt64(max(0, now.tv_sec)) &* 1000 &+ UInt64(max(0, now.tv_nsec)) / 1_000_000
        let candidate = milliseconds << 16
        return last.withLock { last in
            last = max(candidate, last &+ 1)
            return last
        }
    }
}
