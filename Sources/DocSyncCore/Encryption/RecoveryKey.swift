import Crypto
import Foundation

/// The key a person writes down when encryption is turned on (SPEC §13): 32 random bytes
/// that unwrap the account's private keys when every device is lost. Shown as 56 characters
/// of RFC 4648 base32 (lowercase, no padding) — the 52 of the bytes and 4 of a checksum
/// (the first 20 bits of SHA-256 of the bytes) — in groups of four joined by `-`. Read back
/// ignoring case, spaces and dashes; a typo fails the checksum.
public struct RecoveryKey: Sendable, Equatable {
    public let bytes: Data

    /// A new random recovery key.
    public init() { bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) } }

    /// The key of 32 `bytes`.
    public init(bytes: Data) throws(EncryptionError) {
        guard bytes.count == 32 else { throw EncryptionError(.malformed, "a recovery key is 32 bytes, not \(bytes.count)") }
        self.bytes = bytes
    }

    /// The key written as `text`; `malformed` for text that is not one (a typo included).
    public init(text: String) throws(EncryptionError) {
        let letters = text.lowercased().filter { $0 != "-" && $0 != " " }
        guard letters.count == 56, let decoded = Base32.decode(String(letters.prefix(52))), decoded.count == 32 else {
            throw EncryptionError(.malformed, "a recovery key is 56 letters and digits (a-z, 2-7) in groups of four")
        }
        guard Self.checksum(of: decoded) == String(letters.suffix(4)) else {
            throw EncryptionError(.malformed, "the recovery key has a typo (its checksum does not match)")
        }
        bytes = decoded
    }

    /// The key as a person writes it down.
    public var text: String {
        let letters = Array(Base32.encode(bytes).prefix(52) + Self.checksum(of: bytes))
        return stride(from: 0, to: letters.count, by: 4).map { String(letters[$0..<min($0 + 4, letters.count)]) }.joined(separator: "-")
    }

    static func checksum(of bytes: Data) -> String {
        String(Base32.encode(Data(SHA256.hash(data: bytes).prefix(3))).prefix(4))
    }

    /// The X25519 key the account's private keys are wrapped for (`KeyWrap`, context
    /// `account`): its private half is HKDF-SHA256 of the bytes (salt `docsync/1`, info
    /// `recovery`). Its public half is in the key directory, signed by the account, so a
    /// trusted device wraps new account keys for it without knowing the recovery key.
    public var agreementKey: Curve25519.KeyAgreement.PrivateKey {
        let raw = FolderEpochKeys.derive(SymmetricKey(data: bytes), "recovery").withUnsafeBytes { Data($0) }
        return try! Curve25519.KeyAgreement.PrivateKey(rawRepresentation: raw)
    }
}

/// RFC 4648 base32, lowercase, without padding.
enum Base32 {
    static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    static func encode(_ data: Data) -> String {
        var result: [UInt8] = []
        var buffer: UInt32 = 0, bits = 0
        for byte in data {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                result.append(alphabet[Int(buffer >> UInt32(bits - 5) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { result.append(alphabet[Int(buffer << UInt32(5 - bits) & 31)]) }
        return String(decoding: result, as: UTF8.self)
    }

    static func decode(_ text: String) -> Data? {
        var result = Data()
        var buffer: UInt32 = 0, bits = 0
        for character in text.utf8 {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = buffer << 5 | UInt32(value)
            bits += 5
            if bits >= 8 {
                result.append(UInt8(buffer >> UInt32(bits - 8) & 0xFF))
                bits -= 8
            }
        }
        return result
    }
}
