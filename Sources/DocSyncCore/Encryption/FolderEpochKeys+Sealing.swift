import Crypto
import Foundation

/// The one sealed layout chunks and records share: `suite (1) ‖ epoch (4) ‖ nonce (12) ‖
/// AES-256-GCM ciphertext ‖ tag (16)` under the epoch's `seal` key.
extension FolderEpochKeys {
    /// `plaintext` sealed with the associated data `associated(suite, epoch)`. `nonce` is
    /// random unless given (known-answer tests only: a nonce must never repeat under a key).
    func seal<D: DataProtocol>(_ plaintext: D, nonce: AES.GCM.Nonce?, associated: (CipherSuite, UInt32) -> [UInt8]) -> Data {
        let suite = CipherSuite.current
        // Sealing with a valid key and nonce cannot fail.
        let box = try! AES.GCM.seal(plaintext, using: sealing, nonce: nonce ?? AES.GCM.Nonce(), authenticating: associated(suite, epoch))
        var sealed = Data(capacity: SealedChunk.overhead + plaintext.count)
        sealed.append(suite.rawValue)
        withUnsafeBytes(of: epoch.bigEndian) { sealed.append(contentsOf: $0) }
        sealed.append(box.combined!)
        return sealed
    }

    /// The plaintext of `sealed` and its suite: `missingKey` when it names another epoch,
    /// `malformed` when truncated, `authenticationFailed` (with `refusal`) when it does not
    /// open with the associated data `associated(suite, epoch)`. `what` names it in errors
    /// (both texts are made only for an error).
    func open(_ sealed: Data, what: @escaping @autoclosure () -> String, refusal: @autoclosure () -> String,
              associated: (CipherSuite, UInt32) -> [UInt8]) throws(EncryptionError) -> (suite: CipherSuite, plaintext: Data) {
        var reader = SealedReader(sealed, what: what())
        let suite = try CipherSuite(byte: try reader.byte())
        let epoch = try reader.uint32()
        guard epoch == self.epoch else { throw EncryptionError(.missingKey, "\(what()) is of epoch \(epoch), not \(self.epoch)") }
        guard reader.remaining >= 12 + 16 else { throw EncryptionError(.malformed, "\(what()) is truncated") }
        do {
            let box = try AES.GCM.SealedBox(combined: reader.rest())
            return (suite, try AES.GCM.open(box, using: sealing, authenticating: associated(suite, epoch)))
        } catch {
            throw EncryptionError(.authenticationFailed, refusal())
        }
    }
}
