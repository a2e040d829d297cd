/// The identity of a record: its zone and its record name.
///
/// A record name is a stable id for one item for its whole life: a rename or a move
/// changes the record's `path` field, never its name. Names are 1–255 bytes of
/// printable ASCII without `/` or `\`; `RecordID.newName()` (DocSyncPlatform) makes a fresh one.
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

    /// The record name of 32 lowercase hex characters made of `timeKey` (the first 16) and
    /// `random` (the last 16). Names whose `timeKey`s increase sort in that order, so tables
    /// keyed by record name grow at their end; `RecordID.newName()` (DocSyncPlatform) draws
    /// both from the system's clock and random generator.
    public static func name(timeKey: UInt64, random: UInt64) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: 32) { buffer in
            for (index, word) in [timeKey, random].enumerated() {
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
