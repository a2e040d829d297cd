import Foundation

/// Appends values in the compact binary form of `CompactCoding`: unsigned LEB128 varints,
/// fixed 8-byte little-endian integers, length-prefixed UTF-8 strings and raw 32-byte digests.
///
/// The writer never fails; what it produces is read back by `CompactReader` in the same order.
struct CompactWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func fixed(_ value: Int64) {
        let bits = UInt64(bitPattern: value)
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            varint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// Bytes, after their count as a varint.
    mutating func blob(_ value: Data) {
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// A presence byte (0 or 1) and, when present, the value.
    mutating func optional<T>(_ value: T?, _ write: (inout CompactWriter, T) -> Void) {
        guard let value else { return byte(0) }
        byte(1)
        write(&self, value)
    }

    mutating func digest(_ value: SHA256Digest) {
        for word in [value.w0, value.w1, value.w2, value.w3] {
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
    }
}
