import Foundation

/// Reads what `CompactWriter` wrote, in the same order. Every read checks the bounds and
/// throws `CompactCodingError` on truncated or malformed input; nothing traps.
struct CompactReader {
    private let bytes: [UInt8]
    private var position = 0

    init<C: Collection>(_ bytes: C) where C.Element == UInt8 { self.bytes = Array(bytes) }

    var isAtEnd: Bool { position == bytes.count }

    mutating func byte() throws(CompactCodingError) -> UInt8 {
        guard position < bytes.count else { throw CompactCodingError("truncated at byte \(position)") }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func varint() throws(CompactCodingError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte()
            guard shift < 64 else { throw CompactCodingError("varint longer than 64 bits at byte \(position)") }
            value |= UInt64(next & 0x7f) << shift
            if next & 0x80 == 0 { return value }
            shift += 7
        }
    }

    /// A varint that must fit an `Int` no larger than `limit`.
    mutating func count(atMost limit: Int) throws(CompactCodingError) -> Int {
        let value = try varint()
        guard value <= UInt64(limit) else { throw CompactCodingError("length \(value) over \(limit) at byte \(position)") }
        return Int(value)
    }

    mutating func fixed() throws(CompactCodingError) -> Int64 {
        guard bytes.count - position >= 8 else { throw CompactCodingError("truncated at byte \(position)") }
        var bits: UInt64 = 0
        for index in 0..<8 { bits |= UInt64(bytes[position + index]) << UInt64(index * 8) }
        position += 8
        return Int64(bitPattern: bits)
    }

    mutating func string() throws(CompactCodingError) -> String {
        let length = try count(atMost: Int(UInt32.max))
        guard length <= bytes.count - position else { throw CompactCodingError("truncated string at byte \(position)") }
        defer { position += length }
        guard let string = String(validating: bytes[position..<position + length], as: UTF8.self) else {
            throw CompactCodingError("invalid UTF-8 at byte \(position)")
        }
        return string
    }

    /// What `CompactWriter.blob` wrote.
    mutating func blob() throws(CompactCodingError) -> Data {
        let length = try count(atMost: Int(UInt32.max))
        guard length <= bytes.count - position else { throw CompactCodingError("truncated bytes at byte \(position)") }
        defer { position += length }
        return Data(bytes[position..<position + length])
    }

    /// A presence byte: whether an optional value follows.
    mutating func presence() throws(CompactCodingError) -> Bool {
        switch try byte() {
        case 0: return false
        case 1: return true
        case let other: throw CompactCodingError("presence byte \(other) at byte \(position - 1)")
        }
    }

    mutating func optional<T>(_ read: (inout CompactReader) throws(CompactCodingError) -> T) throws(CompactCodingError) -> T? {
        switch try byte() {
        case 0: return nil
        case 1: return try read(&self)
        case let other: throw CompactCodingError("presence byte \(other) at byte \(position - 1)")
        }
    }

    mutating func digest() throws(CompactCodingError) -> SHA256Digest {
        guard bytes.count - position >= 32, let digest = SHA256Digest(bytes: bytes[position..<position + 32]) else {
            throw CompactCodingError("truncated digest at byte \(position)")
        }
        position += 32
        return digest
    }
}

/// Stored bytes that are not a valid compact encoding (a damaged database row).
public struct CompactCodingError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
