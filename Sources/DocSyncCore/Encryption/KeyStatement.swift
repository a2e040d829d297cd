import Crypto
import Foundation

/// A statement about keys that an account signs with its Ed25519 key, so that a server
/// cannot forge or swap it (SPEC §13; the attack of "Share with Care", EuroS&P 2024): "this
/// wrapped secret is epoch E of zone Z for account A", "these public keys are a trusted
/// device of mine". Signed bytes: `"docsync/1 statement" ‖ suite ‖ kind ‖ subject ‖ payload`.
public struct KeyStatement: Sendable, Equatable {
    public enum Kind: UInt8, Sendable {
        /// `payload` is a folder epoch's secret wrapped for the account; `subject` is
        /// `folder:ZONE:EPOCH`.
        case folderKey = 1
        /// `payload` is a trusted device's public keys; `subject` is `device:DEVICE-ID`.
        case trustedDevice = 2
        /// `payload` is the account's public keys of generation G (`subject` `account:G`), or
        /// the recovery key's public key (`recovery:G`).
        case accountKeys = 3
        /// `payload` is another account's public keys of generation G, as this account
        /// confirmed them for a share (the fingerprint compared); `subject` is
        /// `pin:ACCOUNT:G`.
        case pinnedAccount = 4
        /// `payload` is a shared folder's epoch secret wrapped for a participant's account
        /// keys of generation G; `subject` is `share:ZONE:PARTICIPANT:G:EPOCH`.
        case shareKey = 5
    }

    public var suite: CipherSuite
    public var kind: Kind
    public var subject: String
    public var payload: Data
    public var signature: Data

    /// The statement signed by `signer`.
    public init(_ kind: Kind, subject: String, payload: Data, signedBy signer: Curve25519.Signing.PrivateKey) {
        suite = .current
        self.kind = kind
        self.subject = subject
        self.payload = payload
        signature = try! signer.signature(for: Self.signedBytes(suite, kind, subject, payload))
    }

    /// A statement as received (unverified until `verified(by:)`).
    public init(suite: CipherSuite, kind: Kind, subject: String, payload: Data, signature: Data) {
        self.suite = suite
        self.kind = kind
        self.subject = subject
        self.payload = payload
        self.signature = signature
    }

    /// The payload, once the signature is `signer`'s over this kind and subject;
    /// `authenticationFailed` otherwise.
    public func verified(by signer: Curve25519.Signing.PublicKey, kind expected: Kind, subject expectedSubject: String) throws(EncryptionError) -> Data {
        guard kind == expected, subject == expectedSubject,
              signer.isValidSignature(signature, for: Self.signedBytes(suite, kind, subject, payload)) else {
            throw EncryptionError(.authenticationFailed, "the key statement for \(expectedSubject) is not signed by the account that must sign it")
        }
        return payload
    }

    static func signedBytes(_ suite: CipherSuite, _ kind: Kind, _ subject: String, _ payload: Data) -> [UInt8] {
        var data = SealedLayout(label: "docsync/1 statement")
        data.byte(suite.rawValue)
        data.byte(kind.rawValue)
        data.string(subject)
        data.raw(payload)
        return data.bytes
    }
}
