import Crypto
import Foundation

/// The keys of encrypted folders shared between accounts (SPEC §11, §13).
///
/// Each encrypted account publishes, in its *public* key-value store `docsync.public`
/// (zone `~docsync.public`, which every account of the server may read and only its owner
/// writes), what others need to share with it:
///
/// | key | value |
/// |---|---|
/// | `account`, `a.G` | copies of its key directory's: its public keys, self-signed, and the links between generations |
/// | `s.ZONE/PARTICIPANT/EPOCH` | `{"statement"}`: epoch EPOCH's secret of the owner's zone ZONE wrapped for PARTICIPANT's account keys of generation G, signed by the owner (kind `shareKey`, subject `share:ZONE:PARTICIPANT:G:EPOCH`) |
///
/// and keeps in its own key directory, signed by itself:
///
/// | `p.ACCOUNT` | `{"statement"}`: ACCOUNT's public keys of generation G as this account pinned them (kind `pinnedAccount`, subject `pin:ACCOUNT:G`) |
///
/// A participant pins the owner's keys when it first sees the invitation and shows
/// `ApprovalCode.ofShare` of them and its own; the owner pins the participant's keys only
/// when the person types that code (`docs-status share FOLDER --with NAME --fingerprint
/// CODE`) and it matches the code of its own keys and those the server shows for the
/// participant. Only then does the owner wrap the folder's epochs for the participant. A
/// server that substitutes either account's keys makes the codes differ: nothing is wrapped.
extension KeyDirectory {
    /// The key-value store every account of the server may read (reserved like `storeName`).
    public static let publicStoreName = "docsync.public"

    static func pinKey(_ account: String) -> String { "p.\(account)" }
    static func shareKey(_ zone: ZoneID, _ participant: String, _ epoch: UInt32) -> String { "s.\(zone.name)/\(participant)/\(epoch)" }

    /// The account's keys now, reached from `pin` through links the account signed; `nil`
    /// when the directory's account statement does not follow from it (other keys than
    /// pinned: a server substituting them), or there is none.
    public func account(following pin: PinnedAccount) -> PinnedAccount? {
        guard let (keys, generation) = try? account() else { return nil }
        if generation == pin.generation { return keys == pin.keys ? pin : nil }
        guard generation > pin.generation, chain(from: pin.keys, generation: pin.generation, to: generation) == keys else { return nil }
        return PinnedAccount(keys: keys, generation: generation)
    }

    /// What an account publishes of its own directory: `account` and every link `a.G`.
    public var publishedPart: [String: JSONValue] {
        values.filter { $0.key == Self.accountKey || $0.key.hasPrefix("a.") }
    }

    /// The share-key entries whose statement names `zone`, unverified.
    func shareStatements(of zone: ZoneID) -> [ShareKeyEntry] {
        values.compactMap { key, value -> ShareKeyEntry? in
            guard key.hasPrefix("s."), let statement = try? KeyStatement(json: value.field("statement")), statement.kind == .shareKey else { return nil }
            let parts = statement.subject.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 5, parts[0] == "share", parts[1] == zone.name[...],
                  let generation = UInt32(parts[3]), let epoch = UInt32(parts[4]) else { return nil }
            return ShareKeyEntry(key: key, participant: String(parts[2]), generation: generation, epoch: epoch, statement: statement)
        }
    }

    /// The accounts this directory pins (`p.ACCOUNT`), unverified.
    public var pinnedAccounts: [String] { values.keys.filter { $0.hasPrefix("p.") }.map { String($0.dropFirst(2)) }.sorted() }
}

/// One `s.…` entry of a public store, as its statement's subject names it.
struct ShareKeyEntry {
    let key: String
    let participant: String
    let generation: UInt32
    let epoch: UInt32
    let statement: KeyStatement

    static func subject(_ zone: ZoneID, _ participant: String, _ generation: UInt32, _ epoch: UInt32) -> String {
        "share:\(zone.name):\(participant):\(generation):\(epoch)"
    }

    var subject: String { statement.subject }
}

/// What the owner of a shared encrypted folder writes so that exactly its confirmed
/// participants read it (`AccountKeys.sharingPlan`).
public struct SharePlan: Sendable, Equatable {
    /// To the owner's key directory: a new epoch, when one starts.
    public var directory = KeyDirectoryWrites()
    /// To the owner's public store: wraps for participants, and removals.
    public var published = KeyDirectoryWrites()
    /// The epoch started, if one was (a participant removed, or one whose keys changed).
    public var newEpoch: UInt32?

    public var isEmpty: Bool { directory.isEmpty && published.isEmpty }
}

extension AccountKeys {
    /// The secret of epoch `epoch` of `zone` that this generation derives: HKDF-SHA256 of
    /// these keys' 64 private bytes (salt `docsync/1`, info `folder-epoch:ZONE:EPOCH`). Every
    /// trusted device derives the same, so two of them starting the same epoch at once
    /// never seal with different keys; nobody without these private keys derives it.
    public func derivedEpochSecret(of zone: ZoneID, epoch: UInt32) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: pair.privateBytes), salt: Array("docsync/1".utf8),
                               info: Array("folder-epoch:\(zone.name):\(epoch)".utf8), outputByteCount: 32)
    }

    /// Every epoch secret of `zone` the directory has for these keys, or the first derived
    /// when it has none.
    func allEpochSecrets(of zone: ZoneID, in directory: KeyDirectory) -> [UInt32: SymmetricKey] {
        var secrets = epochSecrets(of: zone, in: directory)
        if directory.folderStatements(of: zone).isEmpty { secrets[1] = firstEpochSecret(of: zone) }
        return secrets
    }

    // MARK: pins

    /// The pin of `account`'s keys `pin`, signed by these keys (to the key directory).
    public func pinning(_ account: String, _ pin: PinnedAccount) -> KeyDirectoryWrites {
        let statement = KeyStatement(.pinnedAccount, subject: "pin:\(account):\(pin.generation)", payload: pin.keys.bytes, signedBy: pair.signing)
        var writes = KeyDirectoryWrites()
        writes.values[KeyDirectory.pinKey(account)] = .object(["statement": statement.json])
        return writes
    }

    /// The removal of `account`'s pin (to the key directory).
    public static func unpinning(_ account: String) -> KeyDirectoryWrites {
        var writes = KeyDirectoryWrites()
        writes.values[KeyDirectory.pinKey(account)] = .some(nil)
        return writes
    }

    /// `account`'s keys as this account pinned them, `nil` when it did not (or the entry is
    /// not one these keys signed).
    public func pin(of account: String, in directory: KeyDirectory) -> PinnedAccount? {
        guard let value = directory.values[KeyDirectory.pinKey(account)], let statement = try? KeyStatement(json: value.field("statement")) else { return nil }
        let parts = statement.subject.split(separator: ":")
        guard parts.count == 3, parts[0] == "pin", parts[1] == account[...], let generation = UInt32(parts[2]),
              let payload = try? statement.verified(by: pair.signing.publicKey, kind: .pinnedAccount, subject: statement.subject),
              let keys = try? PublicKeys(bytes: payload) else { return nil }
        return PinnedAccount(keys: keys, generation: generation)
    }

    // MARK: the owner's side

    /// What to write so that `participants` (each confirmed participant's account keys now,
    /// by name) read `zone`, and nobody else reads what is sealed from now on, given this
    /// account's key directory and what its public store holds:
    /// - when the newest epoch was wrapped for an account that is no longer among
    ///   `participants`, or for older keys of one (it removed a device), a new epoch starts
    ///   (`derivedEpochSecret`), wrapped for this account in the directory;
    /// - every epoch is wrapped for every participant's current keys, where the public store
    ///   lacks a wrap these keys signed for them (a new participant reads the folder's
    ///   history; a wrap signed by an older generation of this account is signed again);
    /// - the wraps of accounts no longer participating, or for their older keys, are removed.
    /// Writing the same plan twice is harmless; a plan made after this one's writes is empty.
    public func sharingPlan(of zone: ZoneID, directory: KeyDirectory, published: KeyDirectory,
                            participants: [String: PinnedAccount]) throws(EncryptionError) -> SharePlan {
        var plan = SharePlan()
        var secrets = allEpochSecrets(of: zone, in: directory)
        guard let newest = secrets.keys.max() else { return plan }
        let entries = published.shareStatements(of: zone)
        let current = { (entry: ShareKeyEntry) -> Bool in participants[entry.participant]?.generation == entry.generation }
        if entries.contains(where: { $0.epoch == newest && !current($0) }) {
            let epoch = newest + 1, secret = derivedEpochSecret(of: zone, epoch: epoch)
            plan.directory.merge(try startingEpoch(epoch, of: zone, secret: secret))
            secrets[epoch] = secret
            plan.newEpoch = epoch
        }
        for entry in entries where !current(entry) { plan.published.values[entry.key] = .some(nil) }
        let signer = pair.signing.publicKey
        for (name, keys) in participants {
            for (epoch, secret) in secrets {
                let subject = ShareKeyEntry.subject(zone, name, keys.generation, epoch)
                let key = KeyDirectory.shareKey(zone, name, epoch)
                if let value = published.values[key], let statement = try? KeyStatement(json: value.field("statement")),
                   (try? statement.verified(by: signer, kind: .shareKey, subject: subject)) != nil { continue }
                let wrap = try KeyWrap.wrap(secret.withUnsafeBytes { Data($0) }, for: keys.keys.agreement, context: subject)
                plan.published.values[key] = .object(["statement": KeyStatement(.shareKey, subject: subject, payload: wrap, signedBy: pair.signing).json])
            }
        }
        return plan
    }

    // MARK: the participant's side

    /// The keyring of the shared zone `zone` for this account (named `me`), from the owner's
    /// public store `published`: every epoch wrapped for these keys and signed by `owner`
    /// (the owner's keys now, reached from this account's pin); `nil` when there is none yet
    /// (the owner has not confirmed the fingerprint, or removed this account).
    public func sharedKeyring(of zone: ZoneID, owner: PinnedAccount, published: KeyDirectory, me: String) -> FolderKeyring? {
        var epochs: [FolderEpochKeys] = []
        for entry in published.shareStatements(of: zone) where entry.participant == me && entry.generation == generation {
            guard let wrap = try? entry.statement.verified(by: owner.keys.signing, kind: .shareKey, subject: entry.subject),
                  let secret = try? KeyWrap.unwrap(wrap, with: pair.agreement, context: entry.subject), secret.count == 32,
                  let keys = try? FolderEpochKeys(secret: SymmetricKey(data: secret), epoch: entry.epoch) else { continue }
            epochs.append(keys)
        }
        return epochs.isEmpty ? nil : FolderKeyring(epochs)
    }
}
