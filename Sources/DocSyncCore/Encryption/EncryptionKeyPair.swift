import Crypto
import Foundation

/// A key pair of a device or an account (SPEC §13): X25519 to receive wrapped keys, Ed25519
/// to sign statements about keys. A device's lives in its state directory (mode 600); an
/// account's private half only on its trusted devices, wrapped for each.
public struct EncryptionKeyPair: Sendable {
    public let agreement: Curve25519.KeyAgreement.PrivateKey
    public let signing: Curve25519.Signing.PrivateKey

    /// A new random key pair.
    public init() {
        agreement = Curve25519.KeyAgreement.PrivateKey()
        signing = Curve25519.Signing.PrivateKey()
    }

    /// The key pair whose private halves are `privateBytes` (`rawRepresentation`, 64 bytes).
    public init(privateBytes: Data) throws(EncryptionError) {
        guard privateBytes.count == 64 else { throw EncryptionError(.malformed, "a private key pair is 64 bytes, not \(privateBytes.count)") }
        do {
            agreement = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: privateBytes.prefix(32))
            signing = try Curve25519.Signing.PrivateKey(rawRepresentation: privateBytes.suffix(32))
        } catch {
            throw EncryptionError(.malformed, "a private key pair does not decode: \(error)")
        }
    }

    /// The private halves: X25519 (32 bytes) then Ed25519 (32 bytes). Keep secret.
    public var privateBytes: Data { agreement.rawRepresentation + signing.rawRepresentation }

    public var publicKeys: PublicKeys { PublicKeys(agreement: agreement.publicKey, signing: signing.publicKey) }
}

/// The public half of an `EncryptionKeyPair`, as others see it.
public struct PublicKeys: Sendable, Hashable {
    public let agreement: Curve25519.KeyAgreement.PublicKey
    public let signing: Curve25519.Signing.PublicKey

    public init(agreement: Curve25519.KeyAgreement.PublicKey, signing: Curve25519.Signing.PublicKey) {
        self.agreement = agreement
        self.signing = signing
    }

    /// The keys from `bytes` (X25519 then Ed25519, 64 bytes).
    public init(bytes: Data) throws(EncryptionError) {
        guard bytes.count == 64 else { throw EncryptionError(.malformed, "public keys are 64 bytes, not \(bytes.count)") }
        do {
            agreement = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: bytes.prefix(32))
            signing = try Curve25519.Signing.PublicKey(rawRepresentation: bytes.suffix(32))
        } catch {
            throw EncryptionError(.malformed, "public keys do not decode: \(error)")
        }
    }

    /// X25519 (32 bytes) then Ed25519 (32 bytes).
    public var bytes: Data { agreement.rawRepresentation + signing.rawRepresentation }

    /// What a person compares on two devices before approving one from the other: 16
    /// decimal digits in four groups ("0417 3920 8861 2045"), from
    /// SHA-256(`"docsync/1 fingerprint"` ‖ the 64 bytes), first 8 bytes as a big-endian
    /// integer modulo 10¹⁶. A server that substitutes keys changes it.
    public var fingerprint: String {
        var input = Array("docsync/1 fingerprint".utf8)
        input.append(contentsOf: bytes)
        return Self.digitGroups(of: Array(SHA256.hash(data: input)))
    }

    /// 16 decimal digits in four groups: the first 8 bytes of `digest` as a big-endian
    /// integer modulo 10¹⁶.
    static func digitGroups(of digest: [UInt8]) -> String {
        var value: UInt64 = 0
        for byte in digest.prefix(8) { value = value << 8 | UInt64(byte) }
        let digits = String(value % 10_000_000_000_000_000)
        let padded = Array(String(repeating: "0", count: 16 - digits.count) + digits)
        return stride(from: 0, to: 16, by: 4).map { String(padded[$0 ..< $0 + 4]) }.joined(separator: " ")
    }

    /// Whether `text` is this fingerprint, ignoring spaces and dashes.
    public func hasFingerprint(_ text: String) -> Bool {
        text.filter { $0 != " " && $0 != "-" } == fingerprint.filter { $0 != " " }
    }

    public static func == (lhs: PublicKeys, rhs: PublicKeys) -> Bool { lhs.bytes == rhs.bytes }
    public func hash(into hasher: inout Hasher) { hasher.combine(bytes) }
}
