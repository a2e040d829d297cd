import Foundation

/// Writes JSON byte for byte as `WireCoding.encoder` does (sorted keys, slashes not escaped,
/// no spaces), for the types that know their own keys (`WireJSONCodable`), without the cost
/// of `Encodable`.
///
/// The caller writes keys in sorted order and says where containers begin and end; the
/// writer puts the commas between fields and elements. Strings are escaped as
/// `JSONEncoder` escapes them: `"` and `\` with a backslash, `\b \t \n \f \r` by name,
/// other control characters as `\u00xx`; everything else verbatim.
public struct WireJSONWriter {
    public private(set) var bytes: [UInt8] = []
    private var needsComma = false

    public init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    public mutating func beginObject() {
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Starts the next element of an array.
    public mutating func element() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = false
    }

    /// Starts the field `name` of an object (a plain key: no character needing escape).
    public mutating func key(_ name: StaticString) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Starts the field whose key is `name`'s UTF-8 (a plain key: no character needing escape).
    mutating func key(utf8 name: UnsafeBufferPointer<UInt8>) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: name)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Starts the field `name` of an object, a key known only at run time (escaped as needed).
    public mutating func key(_ name: String) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        var name = name
        name.withUTF8 { appendQuoted($0) }
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A value as `WireCoding.encoder` writes it, for the rare parts not written by hand.
    /// A value that cannot be encoded is written as `null`.
    public mutating func encoded(_ value: some Encodable) {
        if let data = try? WireCoding.encoder.encode(value) {
            bytes.append(contentsOf: data)
        } else {
            bytes.append(contentsOf: Array("null".utf8))
        }
        needsComma = true
    }

    public mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { appendQuoted($0) }
        needsComma = true
    }

    public mutating func integer(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for the 20 digits of any Int64
        withUnsafeMutableBytes(of: &digits) { buffer in
            var index = buffer.count
            repeat {
                index -= 1
                buffer[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: buffer[index...])
        }
        needsComma = true
    }

    public mutating func integer(_ value: Int) { integer(Int64(value)) }

    public mutating func bool(_ value: Bool) {
        bytes.append(contentsOf: value ? WireJSONWriter.trueBytes : WireJSONWriter.falseBytes)
        needsComma = true
    }

    /// The digest as 64 lowercase hex characters in quotes, as `SHA256Digest` encodes itself.
    public mutating func digest(_ digest: SHA256Digest) {
        bytes.append(UInt8(ascii: "\""))
        appendHex(digest.w0)
        appendHex(digest.w1)
        appendHex(digest.w2)
        appendHex(digest.w3)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    private mutating func appendHex(_ word: UInt64) {
        for shift in stride(from: 60, through: 0, by: -4) {
            bytes.append(WireJSONWriter.hexDigits[Int(truncatingIfNeeded: word >> UInt64(shift)) & 0xf])
        }
    }

    private mutating func appendQuoted(_ utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        var start = 0
        for index in 0..<utf8.count {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
            start = index + 1
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x0a: bytes.append(UInt8(ascii: "n"))
            case 0x0c: bytes.append(UInt8(ascii: "f"))
            case 0x0d: bytes.append(UInt8(ascii: "r"))
            default:
                bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          WireJSONWriter.hexDigits[Int(byte >> 4)], WireJSONWriter.hexDigits[Int(byte & 0xf)]])
            }
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<utf8.count]))
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
    private static let trueBytes: [UInt8] = Array("true".utf8)
    private static let falseBytes: [UInt8] = Array("false".utf8)
}
