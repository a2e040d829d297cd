import Crypto
import Foundation

/// A secret (a folder epoch's, an account's private keys) sealed for one reader (SPEC §13).
///
/// `suite (1) ‖ 0x01 ‖ ephemeral X25519 public key (32) ‖ nonce (12) ‖ AES-256-GCM
/// ciphertext ‖ tag (16)`, the key HKDF-SHA256 of the X25519 shared secret with salt
/// `ephemeral public ‖ recipient public` and info `docsync/1 wrap`, authenticating
/// `"docsync/1 wrap" ‖ suite ‖ 0x01 ‖ context`, where the context names what is wrapped
/// (`folder:ZONE:EPOCH`, `account`): a wrapped key moved to another context does not open.
/// A recovery key is an X25519 key too (`RecoveryKey.agreementKey`). Wrapping proves nothing about who wrapped it; statements about
/// keys that the server must not be able to forge are signed (`KeyStatement`).
public enum KeyWrap {
    static let toPublicKey: UInt8 = 1

    /// `secret` sealed for the holder of `recipient`'s private key. `ephemeral` and `nonce`
    /// are random unless given (known-answer tests only). `malformed` for a public key no
    /// secret can be agreed with (a low-order point).
    public static func wrap(_ secret: Data, for recipient: Curve25519.KeyAgreement.PublicKey, context: String,
                            ephemeral: Curve25519.KeyAgreement.PrivateKey = .init(), nonce: AES.GCM.Nonce = AES.GCM.Nonce()) throws(EncryptionError) -> Data {
        let suite = CipherSuite.current
        guard let shared = agreed(ephemeral, recipient) else {
            throw EncryptionError(.malformed, "no key can be agreed with the public key the key for \(context) is to be wrapped for")
        }
        let key = sharedKey(shared, ephemeral: ephemeral.publicKey, recipient: recipient)
        let box = try! AES.GCM.seal(secret, using: key, nonce: nonce, authenticating: associatedData(suite, toPublicKey, context))
        var wrapped = Data([suite.rawValue, toPublicKey])
        wrapped.append(ephemeral.publicKey.rawRepresentation)
        wrapped.append(box.combined!)
        return wrapped
    }

    /// The secret `wrapped` for `recipient` in `context`; `authenticationFailed` when it was
    /// wrapped for another key or context, or changed.
    public static func unwrap(_ wrapped: Data, with recipient: Curve25519.KeyAgreement.PrivateKey, context: String) throws(EncryptionError) -> Data {
        var reader = SealedReader(wrapped, what: "the wrapped key for \(context)")
        let suite = try CipherSuite(byte: try reader.byte())
        guard try reader.byte() == toPublicKey else { throw EncryptionError(.malformed, "the wrapped key for \(context) is not wrapped for a public key") }
        do {
            let ephemeral = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: try reader.bytes(32))
            guard let shared = agreed(recipient, ephemeral) else {
                throw EncryptionError(.authenticationFailed, "the wrapped key for \(context) names an ephemeral key no secret can be agreed with")
            }
            let key = sharedKey(shared, ephemeral: ephemeral, recipient: recipient.publicKey)
            return try AES.GCM.open(AES.GCM.SealedBox(combined: reader.rest()), using: key, authenticating: associatedData(suite, toPublicKey, context))
        } catch let error as EncryptionError {
            throw error
        } catch {
            throw EncryptionError(.authenticationFailed, "the wrapped key for \(context) does not open with this device's or account's key")
        }
    }

    /// The X25519 shared secret of `own` and `other`, or `nil` when `other` is of low order
    /// (the secret would be all zeros, known to anyone: RFC 7748 §6.1).
    static func agreed(_ own: Curve25519.KeyAgreement.PrivateKey, _ other: Curve25519.KeyAgreement.PublicKey) -> SharedSecret? {
        guard let shared = try? own.sharedSecretFromKeyAgreement(with: other) else { return nil }
        return shared.withUnsafeBytes { bytes in bytes.contains { $0 != 0 } } ? shared : nil
    }

    static func sharedKey(_ shared: SharedSecret, ephemeral: Curve25519.KeyAgreement.PublicKey, recipient: Curve25519.KeyAgreement.PublicKey) -> SymmetricKey {
        shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: ephemeral.rawRepresentation + recipient.rawRepresentation,
                                       sharedInfo: Array("docsync/1 wrap".utf8), outputByteCount: 32)
    }

    static func associatedData(_ suite: CipherSuite, _ kind: UInt8, _ context: String) -> [UInt8] {
        var data = SealedLayout(label: "docsync/1 wrap")
        data.byte(suite.rawValue)
        data.byte(kind)
        data.string(context)
        return data.bytes
    }
}
