import Crypto
import Foundation

/// The account's key pair in the hands of a trusted device (SPEC §13), and what such a
/// device writes to the key directory: the account's own entries, approvals, folder
/// epochs, a new generation when a device is removed. Every statement it writes is signed
/// with the account's Ed25519 key, every secret wrapped so only its reader opens it.
///
/// An account's keys have a *generation*: 1 when encryption is turned on, one more each
/// time a device is removed (the removed device holds the old private keys, so nothing new
/// may be wrapped for them). The secret of the account's zone names stays the first
/// generation's, so folders keep their zones.
public struct AccountKeys: Sendable {
    public let pair: EncryptionKeyPair
    public let generation: UInt32
    /// The key of the account's opaque zone names (`EncryptionKeyPair.zoneNameSecret` of
    /// the first generation).
    public let zoneNameSecret: SymmetricKey

    public init(_ pair: EncryptionKeyPair, generation: UInt32 = 1, zoneNameSecret: SymmetricKey? = nil) {
        self.pair = pair
        self.generation = generation
        self.zoneNameSecret = zoneNameSecret ?? pair.zoneNameSecret
    }

    /// New account keys (encryption turned on).
    public static func generate() -> AccountKeys { AccountKeys(EncryptionKeyPair()) }

    public var publicKeys: PublicKeys { pair.publicKeys }

    /// What a device keeps of them: the 64 private bytes, the generation (4, big-endian)
    /// and the zone-name secret (32).
    public var stored: Data {
        var data = pair.privateBytes
        withUnsafeBytes(of: generation.bigEndian) { data.append(contentsOf: $0) }
        zoneNameSecret.withUnsafeBytes { data.append(contentsOf: $0) }
        return data
    }

    /// Keys read back from `stored`; `malformed` for anything else.
    public init(stored: Data) throws(EncryptionError) {
        let bytes = Array(stored)
        guard bytes.count == 100 else { throw EncryptionError(.malformed, "stored account keys are 100 bytes, not \(bytes.count)") }
        let generation = bytes[64 ..< 68].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        self.init(try EncryptionKeyPair(privateBytes: Data(bytes[0 ..< 64])), generation: generation,
                  zoneNameSecret: SymmetricKey(data: Data(bytes[68 ..< 100])))
    }

    /// The name on the wire of the account's zone `zone` (`EncryptionKeyPair.opaqueZoneName`).
    public func opaqueZoneName(for zone: ZoneID) -> ZoneID { EncryptionKeyPair.opaqueZoneName(for: zone, secret: zoneNameSecret) }

    // MARK: the account's entries

    /// Turning encryption on: the account's statement, the recovery key's, and this device
    /// (`device`, named `name`) announced and trusted.
    public func enabling(recoveryKey: RecoveryKey, device: PublicKeys, name: String) throws(EncryptionError) -> KeyDirectoryWrites {
        var writes = accountStatement()
        writes.merge(try replacingRecovery(with: recoveryKey.agreementKey.publicKey))
        writes.merge(try Self.announcing(device, name: name, to: publicKeys))
        writes.merge(try trusting(device))
        return writes
    }

    /// The statement that these are the account's keys, of this generation, self-signed.
    func accountStatement() -> KeyDirectoryWrites {
        var writes = KeyDirectoryWrites()
        let statement = KeyStatement(.accountKeys, subject: "account:\(generation)", payload: publicKeys.bytes, signedBy: pair.signing)
        writes.values[KeyDirectory.accountKey] = .object(["statement": statement.json])
        return writes
    }

    /// The recovery entry for the recovery key whose public key is `recovery`: that key,
    /// signed, and these account keys wrapped for it. The old recovery key opens nothing
    /// once this is saved.
    public func replacingRecovery(with recovery: Curve25519.KeyAgreement.PublicKey) throws(EncryptionError) -> KeyDirectoryWrites {
        let statement = KeyStatement(.accountKeys, subject: "recovery:\(generation)", payload: recovery.rawRepresentation, signedBy: pair.signing)
        let wrap = try KeyWrap.wrap(stored, for: recovery, context: "account")
        var writes = KeyDirectoryWrites()
        writes.values[KeyDirectory.recoveryKey] = .object(["statement": statement.json, "wrap": .string(wrap.base64EncodedString())])
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

    /// The approval of `device`: the signed statement that it is trusted and these account
    /// keys (`stored`: the zone-name secret among them) wrapped for it.
    public func trusting(_ device: PublicKeys) throws(EncryptionError) -> KeyDirectoryWrites {
        let id = DeviceID(device)
        let statement = KeyStatement(.trustedDevice, subject: "device:\(id)", payload: device.bytes, signedBy: pair.signing)
        let wrap = try KeyWrap.wrap(stored, for: device.agreement, context: "account-key:\(id)")
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
            throw EncryptionError(.authenticationFailed, "the fingerprint does not match the one this device computes for it: compare the fingerprint the new device shows (docs-status encryption there) and type it again; if it still differs, the keys were changed on the way and the device is not approved")
        }
        return try trusting(announcement.publicKeys)
    }

    /// The name a device announced, `nil` when it does not open (not sealed for these keys).
    public func name(of announcement: DeviceAnnouncement) -> String? {
        guard let bytes = try? KeyWrap.unwrap(announcement.sealedName, with: pair.agreement, context: "device-name:\(announcement.id)") else { return nil }
        return String(data: bytes, encoding: .utf8)
    }

    /// The public keys of `id` when the server's trust entry for it is one these keys signed.
    public func trustedKeys(of id: DeviceID, in directory: KeyDirectory) -> PublicKeys? {
        guard let trust = directory.trust(of: id), let keys = try? PublicKeys(bytes: trust.statement.payload), DeviceID(keys) == id,
              (try? trust.statement.verified(by: pair.signing.publicKey, kind: .trustedDevice, subject: "device:\(id)")) != nil else { return nil }
        return keys
    }

    /// Whether the server's trust entry for `id` is one these keys signed.
    public func trusts(_ id: DeviceID, in directory: KeyDirectory) -> Bool { trustedKeys(of: id, in: directory) != nil }

    // MARK: folder keys

    /// The first epoch's secret of a zone that has no epoch in the directory yet: HKDF-SHA256
    /// of these keys' 64 private bytes (salt `docsync/1`, info `folder-epoch:ZONE:1`). Every
    /// trusted device derives the same one, offline too, so two devices starting a folder at
    /// once never seal with different keys; it is written to the directory like any epoch.
    public func firstEpochSecret(of zone: ZoneID) -> SymmetricKey { derivedEpochSecret(of: zone, epoch: 1) }

    /// An epoch of `zone` with `secret`, wrapped for these keys and signed.
    public func startingEpoch(_ epoch: UInt32, of zone: ZoneID, secret: SymmetricKey = FolderEpochKeys.newSecret()) throws(EncryptionError) -> KeyDirectoryWrites {
        let context = "folder:\(zone.name):\(epoch)"
        let wrap = try KeyWrap.wrap(secret.withUnsafeBytes { Data($0) }, for: publicKeys.agreement, context: context)
        let statement = KeyStatement(.folderKey, subject: context, payload: wrap, signedBy: pair.signing)
        var writes = KeyDirectoryWrites()
        writes.values[KeyDirectory.folderKey(zone, epoch)] = .object(["statement": statement.json])
        return writes
    }

    /// The secret of every epoch of `zone` whose statement these keys signed and whose wrap
    /// opens with them. An entry that fails either is left out (a record or chunk sealed in
    /// its epoch does not open: `missingKey`).
    public func epochSecrets(of zone: ZoneID, in directory: KeyDirectory) -> [UInt32: SymmetricKey] {
        var secrets: [UInt32: SymmetricKey] = [:]
        for (epoch, statement) in directory.folderStatements(of: zone) {
            let context = "folder:\(zone.name):\(epoch)"
            guard let wrap = try? statement.verified(by: pair.signing.publicKey, kind: .folderKey, subject: context),
                  let secret = try? KeyWrap.unwrap(wrap, with: pair.agreement, context: context), secret.count == 32 else { continue }
            secrets[epoch] = SymmetricKey(data: secret)
        }
        return secrets
    }

    /// Every epoch of `zone` the directory has for these keys — or, when the directory has
    /// none for the zone, its first epoch derived (`firstEpochSecret`); `nil` when it has
    /// some and none opens.
    public func keyring(of zone: ZoneID, in directory: KeyDirectory) -> FolderKeyring? {
        let epochs = allEpochSecrets(of: zone, in: directory).compactMap { try? FolderEpochKeys(secret: $1, epoch: $0) }
        return epochs.isEmpty ? nil : FolderKeyring(epochs)
    }
}
