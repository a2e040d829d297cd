import Foundation

/// Where this device stands with its account's encryption (SPEC §13), decided from the key
/// directory the server showed, the device's own keys and what it kept from before.
public enum DeviceStanding: Sendable {
    /// The account is not encrypted (and this device never saw it encrypted).
    case plainAccount
    /// This device holds the account's keys.
    case trusted(AccountKeys)
    /// The account is encrypted and this device does not hold its keys yet: it uploads
    /// nothing until a trusted device approves it after the person compares `code` on
    /// both, or the recovery key is entered.
    case awaitingApproval(account: PublicKeys, code: String)
    /// What the server showed contradicts what this device knows (another account key than
    /// the one it saw, a trust entry that is not the account's): it trusts none of it.
    case refused(EncryptionError)

    /// Decides the standing of the device holding `device`, given `directory` (as the
    /// server showed it), the account keys this device kept (`held`) and the account's
    /// public keys it saw first (`pinned`: trust on first sight, confirmed by the code).
    public static func decide(directory: KeyDirectory, device: EncryptionKeyPair, held: AccountKeys?, pinned: PublicKeys?) -> DeviceStanding {
        let shown: PublicKeys?
        do { shown = try directory.accountPublicKeys() } catch { return .refused(error) }
        // Keys this device holds are the truth: a directory that lost its entries (a server
        // withholding them) does not make it forget the account is encrypted.
        if let held {
            if let shown, shown != held.publicKeys {
                return .refused(EncryptionError(.authenticationFailed, "the server shows other account keys than those this device holds; it may be substituting keys"))
            }
            return .trusted(held)
        }
        guard let account = shown ?? pinned else { return .plainAccount }
        if let pinned, pinned != account {
            return .refused(EncryptionError(.authenticationFailed, "the server shows other account keys than those this device saw before; it may be substituting keys"))
        }
        let id = DeviceID(device.publicKeys)
        if let trust = directory.trust(of: id) {
            let context = "account-key:\(id)"
            guard let bytes = try? KeyWrap.unwrap(trust.wrap, with: device.agreement, context: context),
                  let pair = try? EncryptionKeyPair(privateBytes: bytes), pair.publicKeys == account,
                  (try? trust.statement.verified(by: account.signing, kind: .trustedDevice, subject: "device:\(id)")) == device.publicKeys.bytes
            else {
                return .refused(EncryptionError(.authenticationFailed, "the approval the server shows for this device is not one the account made; approve this device again"))
            }
            return .trusted(AccountKeys(pair))
        }
        return .awaitingApproval(account: account, code: ApprovalCode.of(account: account, device: device.publicKeys))
    }

    /// The account keys a recovery key opens from `directory`, checked against the account
    /// keys this device saw (`pinned`) or the directory's own statement.
    public static func recovering(with recoveryKey: RecoveryKey, directory: KeyDirectory, pinned: PublicKeys?) throws(EncryptionError) -> AccountKeys {
        guard let wrap = directory.recoveryWrap else {
            throw EncryptionError(.missingKey, "the account has no recovery key on the server")
        }
        let pair = try EncryptionKeyPair(privateBytes: try KeyWrap.unwrap(wrap, recoveryKey: recoveryKey, context: "account"))
        let shown = try directory.accountPublicKeys()
        if let expected = pinned ?? shown, expected != pair.publicKeys {
            throw EncryptionError(.authenticationFailed, "the recovery key opens other account keys than the account's; the server may be substituting keys")
        }
        return AccountKeys(pair)
    }
}
