import Foundation

/// The account's public keys as a device last confirmed them, and their generation: what a
/// device keeps (`account-public`) so that a server showing other keys later is refused
/// unless the account itself signed the way from these to those.
public struct PinnedAccount: Sendable, Equatable {
    public let keys: PublicKeys
    public let generation: UInt32

    public init(keys: PublicKeys, generation: UInt32) {
        self.keys = keys
        self.generation = generation
    }

    /// The 64 public bytes and the generation (4, big-endian).
    public var stored: Data {
        var data = keys.bytes
        withUnsafeBytes(of: generation.bigEndian) { data.append(contentsOf: $0) }
        return data
    }

    public init(stored: Data) throws(EncryptionError) {
        let bytes = Array(stored)
        guard bytes.count == 68 else { throw EncryptionError(.malformed, "stored account public keys are 68 bytes, not \(bytes.count)") }
        self.init(keys: try PublicKeys(bytes: Data(bytes[0 ..< 64])), generation: bytes[64 ..< 68].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
    }
}

/// Where this device stands with its account's encryption (SPEC §13), decided from the key
/// directory the server showed, the device's own keys and what it kept from before.
public enum DeviceStanding: Sendable {
    /// The account is not encrypted (and this device never saw it encrypted).
    case plainAccount
    /// This device holds the account's keys (of the directory's generation).
    case trusted(AccountKeys)
    /// The account is encrypted and this device does not hold its keys yet: it uploads
    /// nothing until a trusted device approves it after the person compares `code` on
    /// both, or the recovery key is entered.
    case awaitingApproval(account: PinnedAccount, code: String)
    /// What the server showed contradicts what this device knows (other account keys than
    /// it saw, with no link the account signed; older ones; a trust entry the account did
    /// not make), or the device was removed: it trusts none of it and decrypts nothing new.
    case refused(EncryptionError)

    /// Decides the standing of the device holding `device`, given `directory` (as the
    /// server showed it), the account keys this device kept (`held`) and the account's
    /// public keys it confirmed last (`pinned`: trust on first sight, confirmed by the code).
    public static func decide(directory: KeyDirectory, device: EncryptionKeyPair, held: AccountKeys?, pinned: PinnedAccount?) -> DeviceStanding {
        let shown: (keys: PublicKeys, generation: UInt32)?
        do { shown = try directory.account() } catch { return .refused(error) }
        let known = held.map { PinnedAccount(keys: $0.publicKeys, generation: $0.generation) } ?? pinned
        guard let shown else {
            // Keys this device holds or saw are the truth: a directory that lost its entries
            // (a server withholding them) does not make it forget the account is encrypted.
            if let held { return .trusted(held) }
            if let known { return .awaitingApproval(account: known, code: ApprovalCode.of(account: known.keys, device: device.publicKeys)) }
            return .plainAccount
        }
        if let known {
            if shown.generation < known.generation {
                return .refused(EncryptionError(.rolledBack, "the server shows the account's keys of generation \(shown.generation), older than generation \(known.generation) this device knows; it may be serving an old copy"))
            }
            guard directory.chain(from: known.keys, generation: known.generation, to: shown.generation) == shown.keys else {
                return .refused(EncryptionError(.authenticationFailed, "the server shows other account keys than those this device knows, and the account did not sign the change; it may be substituting keys"))
            }
        }
        if let held, held.generation == shown.generation { return .trusted(held) }
        let target = PinnedAccount(keys: shown.keys, generation: shown.generation)
        let id = DeviceID(device.publicKeys)
        if let trust = directory.trust(of: id) {
            guard let bytes = try? KeyWrap.unwrap(trust.wrap, with: device.agreement, context: "account-key:\(id)"),
                  let keys = try? AccountKeys(stored: bytes), keys.publicKeys == target.keys, keys.generation == target.generation,
                  (try? trust.statement.verified(by: target.keys.signing, kind: .trustedDevice, subject: "device:\(id)")) == device.publicKeys.bytes
            else {
                return .refused(EncryptionError(.authenticationFailed, "the approval the server shows for this device is not one the account made; approve this device again"))
            }
            return .trusted(keys)
        }
        if held != nil {
            return .refused(EncryptionError(.missingKey, "this device was removed from the account on another device: it decrypts nothing written since; to use it again, move its state directory's account-key aside and approve it again"))
        }
        return .awaitingApproval(account: target, code: ApprovalCode.of(account: target.keys, device: device.publicKeys))
    }

    /// The account keys a recovery key opens from `directory`, checked against the
    /// directory's account statement — and reached from the keys this device confirmed
    /// (`pinned`) by links the account signed.
    public static func recovering(with recoveryKey: RecoveryKey, directory: KeyDirectory, pinned: PinnedAccount?) throws(EncryptionError) -> AccountKeys {
        guard let wrap = directory.recoveryWrap else {
            throw EncryptionError(.missingKey, "the account has no recovery key on the server")
        }
        let bytes: Data
        do { bytes = try KeyWrap.unwrap(wrap, with: recoveryKey.agreementKey, context: "account") } catch {
            throw EncryptionError(.authenticationFailed, "the recovery key does not open the account's keys: is it this account's (and the newest, if it was replaced)?")
        }
        let keys = try AccountKeys(stored: bytes)
        guard let shown = try directory.account(), shown.keys == keys.publicKeys, shown.generation == keys.generation else {
            throw EncryptionError(.authenticationFailed, "the recovery key opens other account keys than the account's; the server may be substituting keys")
        }
        if let pinned, directory.chain(from: pinned.keys, generation: pinned.generation, to: shown.generation) != shown.keys {
            throw EncryptionError(.authenticationFailed, "the recovery key opens account keys this device cannot link to those it saw; the server may be substituting keys")
        }
        return keys
    }
}
