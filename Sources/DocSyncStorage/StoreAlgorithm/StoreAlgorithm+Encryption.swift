import DocSyncCore

extension StoreAlgorithm {
    /// The zone of the account's key directory (SPEC §13) and the record of its `account`
    /// value: when that record lives, the account is end-to-end encrypted.
    static let keyDirectoryZone = KeyValueStoreID(KeyDirectory.storeName).zone
    static let encryptedAccountRecord = KeyValueKey(KeyDirectory.accountKey).recordName

    /// The plain saves of `saves` that an encrypted zone or account refuses (SPEC §13: "an
    /// encrypted account refuses plaintext records"): in a zone named as an encrypted
    /// folder's or store's (`e.…`, `~e.…`), or in any folder or key-value store zone of an
    /// account whose key directory says it is encrypted, only sealed records are kept. The
    /// key directory and the public key store (signed statements and wrapped keys, public by
    /// design) stay plain.
    static func plaintextRefused(_ saves: [Record], in zone: ZoneID, _ rows: some StoreRows) throws -> [RecordID: SyncError] {
        guard zone != keyDirectoryZone && zone != ZoneAccess.publicKeysZone else { return [:] }
        let plain = saves.filter { $0.type != .sealed }
        guard !plain.isEmpty else { return [:] }
        let encryptedZone = zone.isEncryptedFolder || zone.isEncryptedKeyValueStore
        let encryptedAccount = try !encryptedZone && !rows.liveVersions([encryptedAccountRecord], in: keyDirectoryZone.name).isEmpty
        guard encryptedZone || encryptedAccount else { return [:] }
        let why = encryptedZone ? "\(zone) is an encrypted zone" : "the account is end-to-end encrypted"
        return Dictionary(uniqueKeysWithValues: plain.map { record in
            (record.id, SyncError(.invalidArguments, "\(record.id): \(why), and the server keeps only sealed records in it; a device that can seal it sends it again (docs-status encryption on that device)"))
        })
    }
}
