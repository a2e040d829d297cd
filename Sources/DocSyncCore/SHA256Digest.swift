import Crypto
import Foundation

/// A SHA-256 digest: the address of a chunk and the identity of a file's content.
///
/// Stored as four big-endian 64-bit words so that hashing and comparing are cheap;
/// `hex` is the lowercase 64-character form used on disk, in JSON and in logs.
/// Two digests are equal exactly when their 32 bytes are equal.
public struct SHA256Digest: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64

    /// The digest of `bytes`.
    public init<D: DataProtocol>(hashing bytes: D) {
        self.init(SHA256.hash(data: bytes))
    }

    /// The digest of a raw buffer.
    public init(hashing buffer: UnsafeRawBufferPointer) {
        self.init(SHA256.hash(data: buffer))
    }

    /// The digest whose big-endian words are these.
    init(w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64) {
        (self.w0, self.w1, self.w2, self.w3) = (w0, w1, w2, w3)
    }

    /// Wraps a finished swift-crypto digest.
    public init(_ digest: SHA256.Digest) {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        digest.withUnsafeBytes { raw in
            words.0 = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
            words.1 = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            words.2 = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
            words.3 = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
        }
        (w0, w1, w2, w3) = words
    }

    /// Reads 32 raw bytes; `nil` when `bytes` is not exactly 32 bytes long.
    public init?<C: Collection>(bytes: C) where C.Element == UInt8 {
        guard bytes.count == 32 else { return nil }
        // Contiguous bytes (arrays, Data, slices of them) are read as four words at once.
        if let words = bytes.withContiguousStorageIfAvailable({ buffer in
            let raw = UnsafeRawBufferPointer(buffer)
            return (UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                    UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
                    UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)),
                    UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self)))
        }) {
            (w0, w1, w2, w3) = words
            return
        }
        var w0: UInt64 = 0, w1: UInt64 = 0, w2: UInt64 = 0, w3: UInt64 = 0
        var index = 0
        for byte in bytes {
            switch index >> 3 {
            case 0: w0 = w0 << 8 | UInt64(byte)
            case 1: w1 = w1 << 8 | UInt64(byte)
            case 2: w2 = w2 << 8 | UInt64(byte)
            default: w3 = w3 << 8 | UInt64(byte)
            }
            index += 1
        }
        (self.w0, self.w1, self.w2, self.w3) = (w0, w1, w2, w3)
    }

    /// Parses the 64-character hex form (either case); `nil` for anything else.
    public init?(hex: String) {
        let utf8 = Array(hex.utf8)
        guard utf8.count == 64 else { return nil }
        var words = [UInt64](repeating: 0, count: 4)
        for (index, char) in utf8.enumerated() {
            guard let nibble = SHA256Digest.hexValue(of: char) else { return nil }
            words[index / 16] = words[index / 16] << 4 | UInt64(nibble)
        }
        (w0, w1, w2, w3) = (words[0], words[1], words[2], words[3])
    }

    /// The value of one hex digit (either case), `nil` for any other byte.
    static func hexValue(of char: UInt8) -> UInt8? {
        switch char {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): char - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): char - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): char - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The 32 raw bytes, most significant first.
    public var bytes: [UInt8] {
        withUnsafeBytes { Array($0) }
    }

    /// Calls `body` with the 32 raw bytes, most significant first, without allocating.
    /// The buffer is valid only during the call.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try Swift.withUnsafeBytes(of: (w0.bigEndian, w1.bigEndian, w2.bigEndian, w3.bigEndian), body)
    }

    /// Lowercase hex, 64 characters.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public var description: String { hex }

    /// The first 8 bytes as a signed integer (the bits of `w0`): a short key for database
    /// indexes of digests, eight bytes instead of thirty-two. Distinct digests may share a
    /// key, so a lookup by key also compares the whole digest.
    public var indexKey: Int64 { Int64(bitPattern: w0) }

    /// The first 12 hex characters, for log lines.
    public var shortHex: String { String(hex.prefix(12)) }

    public static func < (lhs: SHA256Digest, rhs: SHA256Digest) -> Bool {
        (lhs.w0, lhs.w1, lhs.w2, lhs.w3) < (rhs.w0, rhs.w1, rhs.w2, rhs.w3)
    }
}

extension SHA256Digest: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let digest = SHA256Digest(hex: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected 64 hex characters of a SHA-256 digest, got \(text.prefix(80))")
        }
        self = digest
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}
