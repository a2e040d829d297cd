/// The cryptographic constructions an encrypted folder uses, as one versioned suite (SPEC
/// §13). Every sealed chunk, sealed record and wrapped key names its suite in its first
/// byte. A device refuses a suite it does not know, and one older than a folder has used
/// (`EncryptionError.Kind.downgraded`): there is no way to ask it for weaker sealing.
public enum CipherSuite: UInt8, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    /// AES-256-GCM seals, HMAC-SHA256 names chunks, HKDF-SHA256 derives keys, X25519 wraps
    /// keys for a public key, Ed25519 signs key statements.
    case v1 = 1

    /// The suite this version writes.
    public static let current = CipherSuite.v1

    /// The suite named by `byte`; `unsupportedSuite` for one this version does not know.
    public init(byte: UInt8) throws(EncryptionError) {
        guard let suite = CipherSuite(rawValue: byte) else {
            throw EncryptionError(.unsupportedSuite, "cipher suite \(byte) is not one this version of docsync knows; update docsync")
        }
        self = suite
    }

    /// `self`, unless it is older than `floor` (the newest suite seen for the same folder):
    /// then `downgraded`.
    public func refusingDowngrade(below floor: CipherSuite) throws(EncryptionError) -> CipherSuite {
        guard self >= floor else {
            throw EncryptionError(.downgraded, "sealed with cipher suite \(rawValue), older than suite \(floor.rawValue) this folder already uses")
        }
        return self
    }

    public static func < (lhs: CipherSuite, rhs: CipherSuite) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "suite \(rawValue)" }
}
