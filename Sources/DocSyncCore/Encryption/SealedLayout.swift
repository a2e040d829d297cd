import Foundation

/// The byte layouts the sealed forms share (SPEC §13; the README's "Encryption format"
/// section spells each one out): integers big-endian, strings as a 2-byte length and their
/// UTF-8 bytes, every associated data starting with a label naming what it seals.
struct SealedLayout {
    private(set) var bytes: [UInt8] = []

    init(label: String) { bytes.append(contentsOf: label.utf8) }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func uint32(_ value: UInt32) { withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) } }

    mutating func uint64(_ value: UInt64) { withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) } }

    /// A string as its 2-byte length and UTF-8 bytes; strings here are names of at most 255 bytes.
    mutating func string(_ value: String) {
        let utf8 = Array(value.utf8)
        precondition(utf8.count <= Int(UInt16.max), "a sealed layout string of \(utf8.count) bytes")
        withUnsafeBytes(of: UInt16(utf8.count).bigEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: utf8)
    }

    mutating func raw<C: Collection>(_ value: C) where C.Element == UInt8 { bytes.append(contentsOf: value) }

    mutating func digest(_ value: SHA256Digest) { value.withUnsafeBytes { raw in bytes.append(contentsOf: raw) } }
}

/// Reads the fixed-size header fields of a sealed form.
struct SealedReader {
    let data: Data
    private(set) var offset: Int
    /// Names what is read, in errors (made only when one is thrown: chunks are read by the
    /// thousand).
    let what: () -> String

    init(_ data: Data, what: @escaping @autoclosure () -> String) {
        self.data = data
        self.offset = data.startIndex
        self.what = what
    }

    var remaining: Int { data.endIndex - offset }

    mutating func byte() throws(EncryptionError) -> UInt8 {
        guard remaining >= 1 else { throw truncated() }
        defer { offset += 1 }
        return data[offset]
    }

    mutating func uint32() throws(EncryptionError) -> UInt32 {
        guard remaining >= 4 else { throw truncated() }
        var value: UInt32 = 0
        for index in offset..<offset + 4 { value = value << 8 | UInt32(data[index]) }
        offset += 4
        return value
    }

    mutating func uint64() throws(EncryptionError) -> UInt64 {
        guard remaining >= 8 else { throw truncated() }
        var value: UInt64 = 0
        for index in offset..<offset + 8 { value = value << 8 | UInt64(data[index]) }
        offset += 8
        return value
    }

    mutating func bytes(_ count: Int) throws(EncryptionError) -> Data {
        guard remaining >= count else { throw truncated() }
        defer { offset += count }
        return data[offset..<offset + count]
    }

    mutating func rest() -> Data {
        defer { offset = data.endIndex }
        return data[offset...]
    }

    private func truncated() -> EncryptionError { EncryptionError(.malformed, "\(what()) is truncated") }
}
