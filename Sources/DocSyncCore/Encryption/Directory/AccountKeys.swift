import Crypto
import Foundation

/// The account's key pair in the hands of a trusted device (SPEC §13), and what such a
/// device writes to the key directory: the account's own entries, approvals, folder
/// epochs. Every statement it writes is signed with the account's Ed25519 key, every secret
/// wrapped so only its reader opens it.
public struct AccountKeys: Sendable {
    public let pair: EncryptionKeyPair

    public init(_ pair: EncryptionKeyPair) { self.pair = pair }

    /// A new account key pair (encryption turned on).
    public static func generate() -> AccountKeys { AccountKeys(EncryptionKeyPair()) }

    public var publicKeys: PublicKeys { pair.publicKeys }

    /// Turning encryption on: the account's statement, the recovery wrap, and this device
    /// (`device`, named `name`) announced and trusted.
    public func enabling(recoveryKey: RecoveryKey, device: PublicKeys, name: String) throws(EncryptionError) -> KeyDirectoryWrites {
        var writes = KeyDirectoryWrites()
        writes.values[KeyDirectory.accountKey] = .object([
            "statement": KeyStatement(.accountKeys, subject: "account", payload: publicKeys.bytes, signedBy: pair.signing).json,
        ])
        writes.merge(replacingRecovery(with: recoveryKey))
        writes.merge(try Self.announcing(device, name: name, to: publicKeys))
        writes.merge(try trusting(device))
        return writes
    }

    /// The recovery wrap for a (new) recovery key; the old key opens nothing any more once
    /// this is saved.
    public func replacingRecovery(with recoveryKey: RecoveryKey) -> KeyDirectoryWrites {
        var writes = KeyDirectoryWrites()
        let wrap = KeyWrap.wrap(pair.privateBytes, recoveryKey: recoveryKey, context: "account")
        writes.values[KeyDirectory.recoveryKey] = .object(["wrap": .string(wrap.base64EncodedString())])
        return writes
    }

    /// A device's announcement of itself to an account whose public keys are `account`.
    public static func announcing(_ device: PublicKeys, name: String, to account: PublicKeys) throws(EncryptionError) -> KeyDirectoryWrites {
        let id = DeviceID(device)
        let sealedName = try KeyWrap.wrap(Data(name.utf8), for: account.agreement, context: "device-name:\(id)")
        var writes = KeyDirectoryWrites()
        writes.values[KeyDirectory.announcementKey(id)] = .object([
            "publicKeys": .string(device.bytes.base64EncodedString()), "name": .string(sealedName.base64EncodedString()),
        ])
        return writes
    }

    /// The approval of `device`: the signed statement that it is trusted and the account's
    /// private keys wrapped for it.
    public func trusting(_ device: PublicKeys) throws(EncryptionError) -> KeyDirectoryWrites {
        let id = DeviceID(device)
        let statement = KeyStatement(.trustedDevice, subject: "device:\(id)", payload: device.bytes, signedBy: pair.signing)
        let wrap = try KeyWrap.wrap(pair.privateBytes, for: device.agreement, context: "account-key:\(id)")
        var writes = KeyDirectoryWrites()
        writes.values[KeyDirectory.trustKey(id)] = .object(["statement": statement.json, "wrap": .string(wrap.base64EncodedString())])
        return writes
    }

    /// The approval of the device that announced itself as `announcement`, once the person
    /// compared `code` with the one that device shows: refused (`authenticationFailed`, nothing
    /// written) when it is not the code of this account and the keys the announcement holds
    /// (a mistyped code, or a server that put other keys in the announcement).
    public func approving(_ announcement: DeviceAnnouncement, code: String) throws(EncryptionError) -> KeyDirectoryWrites {
        guard ApprovalCode.matches(code, ApprovalCode.of(account: publicKeys, device: announcement.publicKeys)) else {
            throw EncryptionError(.authenticationFailed, "the fingerprint does not match the one this device computes for it: compare the fingerprint the new device shows (docs-status devices there) and type it again; if it still differs, the keys were changed on the way and the device is not approved")
        }
        return try trusting(announcement.publicKeys)
    }

    /// A device no longer trusted: its trust and its announcement removed.
    public func removing(_ id: DeviceID) -> KeyDirectoryWrites {
        var writes = KeyDirectoryWrites()
        writes.values[KeyDirectory.trustKey(id)] = .some(nil)
        writes.values[KeyDirectory.announcementKey(id)] = .some(nil)
        return writes
    }

    /// The name a device announced, `nil` when it does not open (not sealed for this account).
    public func name(of announcement: DeviceAnnouncement) -> String? {
        guard let bytes = try? KeyWrap.unwrap(announcement.sealedName, with: pair.agreement, context: "device-name:\(announcement.id)") else { return nil }
        return String(data: bytes, encoding: .utf8)
    }

    /// Whether the server's trust entry for `id` is one this account signed for those keys.
    public func trusts(_ id: DeviceID, in directory: KeyDirectory) -> Bool {
        guard let trust = directory.trust(of: id), let keys = try? PublicKeys(bytes: trust.statement.payload), DeviceID(keys) == id else { return false }
        return (try? trust.statement.verified(by: pair.signing.publicKey, kind: .trustedDevice, subject: "device:\(id)")) != nil
    }

    // MARK: folder keys

    /// The first epoch's secret of `zone`: HKDF-SHA256 of the account's 64 private bytes
    /// (salt `docsync/1`, info `folder-epoch:ZONE:1`). Every trusted device derives the same
    /// one, offline too, so two devices starting a folder at once never seal with different
    /// keys; later epochs (after a removal, when the account keys are new too) are random.
    public func firstEpochSecret(of zone: ZoneID) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: pair.privateBytes), salt: Array("docsync/1".utf8),
                               info: Array("folder-epoch:\(zone.name):1".utf8), outputByteCount: 32)
    }

    /// The keys of `zone`'s first epoch (`firstEpochSecret`).
    public func firstEpoch(of zone: ZoneID) throws(EncryptionError) -> FolderEpochKeys {
        try FolderEpochKeys(secret: firstEpochSecret(of: zone), epoch: 1)
    }

    /// A new epoch of `zone`, its secret wrapped for the account and signed.
    public func startingEpoch(_ epoch: UInt32, of zone: ZoneID, secret: SymmetricKey = FolderEpochKeys.newSecret()) throws(EncryptionError) -> KeyDirectoryWrites {
        let context = "folder:\(zone.name):\(epoch)"
        let bytes = secret.withUnsafeBytes { Data($0) }
        let wrap = try KeyWrap.wrap(bytes, for: publicKeys.agreement, context: context)
        let statement = KeyStatement(.folderKey, subject: context, payload: wrap, signedBy: pair.signing)
        var writes = KeyDirectoryWrites()
        writes.values[KeyDirectory.folderKey(zone, epoch)] = .object(["statement": statement.json])
        return writes
    }

    /// Every epoch of `zone` whose statement this account signed and whose secret opens;
    /// `nil` when there is none. An entry that fails either is left out (and a record or
    /// chunk sealed in its epoch does not open: `missingKey`).
    public func keyring(of zone: ZoneID, in directory: KeyDirectory) -> FolderKeyring? {
        var epochs: [FolderEpochKeys] = []
        for (epoch, statement) in directory.folderStatements(of: zone) {
            let context = "folder:\(zone.name):\(epoch)"
            guard let wrap = try? statement.verified(by: pair.signing.publicKey, kind: .folderKey, subject: context),
                  let secret = try? KeyWrap.unwrap(wrap, with: pair.agreement, context: context),
                  let keys = try? FolderEpochKeys(secret: SymmetricKey(data: secret), epoch: epoch) else { continue }
            epochs.append(keys)
        }
        return epochs.isEmpty ? nil : FolderKeyring(epochs)
    }
}
