/// A key of a key-value store (SPEC §12): 1–64 bytes of UTF-8 without NUL. Keys are told
/// apart by their bytes.
///
/// Each key is one `Value` record whose record name is `recordName`: the key with every
/// byte other than an ASCII letter, digit, `_` or `-` written `%XX` (upper-case hex), and a
/// `.` kept except at the start — at most 192 bytes, always a valid record name, and one
/// name per key (`init(recordName:)` reads it back).
public struct KeyValueKey: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public let name: String

    /// The longest key, in bytes of UTF-8.
    public static let maximumLength = 64

    /// Accepts a valid key, or throws `.invalidArguments` saying what is wrong.
    public init(validating name: String) throws(SyncError) {
        if let problem = KeyValueKey.problem(with: name) {
            throw SyncError(.invalidArguments, "key \(name.prefix(80).debugDescription) \(problem)")
        }
        self.name = name
    }

    /// For keys known to be valid (literals in code and tests). Traps otherwise.
    public init(_ name: String) {
        precondition(KeyValueKey.problem(with: name) == nil, "invalid key \(name.debugDescription)")
        self.name = name
    }

    /// The key a `Value` record's name encodes, `nil` when it encodes none.
    public init?(recordName: String) {
        var bytes: [UInt8] = []
        var iterator = recordName.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(SHA256Digest.hexValue), let low = iterator.next().flatMap(SHA256Digest.hexValue) else { return nil }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        guard let name = String(validating: bytes, as: UTF8.self), KeyValueKey.problem(with: name) == nil,
              KeyValueKey.recordName(of: name) == recordName
        else { return nil }
        self.name = name
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        if let problem = KeyValueKey.problem(with: name) {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "key \(problem)")
        }
        self.name = name
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }

    /// The name of the key's `Value` record (see the type's comment).
    public var recordName: String { KeyValueKey.recordName(of: name) }

    public var description: String { name }

    public static func == (lhs: KeyValueKey, rhs: KeyValueKey) -> Bool { lhs.name.bytesEqual(rhs.name) }

    public func hash(into hasher: inout Hasher) { name.hashBytes(into: &hasher) }

    public static func < (lhs: KeyValueKey, rhs: KeyValueKey) -> Bool { lhs.name.bytesPrecede(rhs.name) }

    /// Why `name` is not a valid key, or `nil` when it is.
    public static func problem(with name: String) -> String? {
        if name.isEmpty { return "is empty" }
        if name.utf8.count > maximumLength { return "is \(name.utf8.count) bytes long; a key is at most \(maximumLength) bytes of UTF-8" }
        if name.utf8.contains(0) { return "contains NUL" }
        return nil
    }

    private static func recordName(of name: String) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        for (index, byte) in name.utf8.enumerated() {
            let plain = (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || (byte == UInt8(ascii: ".") && index > 0)
            if plain {
                output.append(byte)
            } else {
                output += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0xf)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
