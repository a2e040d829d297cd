import Crypto
import Foundation

extension AccountKeys {
    /// Removing the device `removed` (SPEC §13): the account's next generation of keys, and
    /// what to write so that nothing written from now on is readable with what the removed
    /// device holds — its old account keys and every old epoch secret:
    /// - the next generation's statement (self-signed) and the link to it (`a.G`, signed by
    ///   these keys), the recovery entry moved to it (wrapped for the recovery key's public
    ///   key the account signed);
    /// - every other trusted device trusted again under it (its name re-announced), every
    ///   device not approved yet forgotten (it announces itself again), the removed one gone;
    /// - for every zone of `zones` and every zone with epochs: its epochs wrapped again for
    ///   the next generation (old content stays readable to the remaining devices) and a new
    ///   epoch with a random secret, which every device seals with from then on.
    /// Save the writes as one atomic batch.
    public func rotating(removing removed: DeviceID, in directory: KeyDirectory, zones: [ZoneID]) throws(EncryptionError) -> (next: AccountKeys, writes: KeyDirectoryWrites) {
        let next = AccountKeys(EncryptionKeyPair(), generation: generation + 1, zoneNameSecret: zoneNameSecret)
        var writes = next.accountStatement()
        let link = KeyStatement(.accountKeys, subject: "account:\(next.generation)", payload: next.publicKeys.bytes, signedBy: pair.signing)
        writes.values[KeyDirectory.linkKey(next.generation)] = .object(["statement": link.json])
        if let recovery = directory.recoveryPublicKey(signedBy: publicKeys, generation: generation) {
            writes.merge(try next.replacingRecovery(with: recovery))
        }
        var kept = Set<DeviceID>()
        for (id, announcement) in directory.announcements where id != removed {
            guard let keys = trustedKeys(of: id, in: directory), keys == announcement.publicKeys, let name = name(of: announcement) else {
                writes.values[KeyDirectory.announcementKey(id)] = .some(nil)
                continue
            }
            writes.merge(try Self.announcing(keys, name: name, to: next.publicKeys))
            writes.merge(try next.trusting(keys))
            kept.insert(id)
        }
        for id in directory.trustedIDs where !kept.contains(id) { writes.values[KeyDirectory.trustKey(id)] = .some(nil) }
        writes.values[KeyDirectory.announcementKey(removed)] = .some(nil)
        for zone in Set(zones).union(directory.zonesWithKeys) {
            let secrets = allEpochSecrets(of: zone, in: directory)
            for (epoch, secret) in secrets { writes.merge(try next.startingEpoch(epoch, of: zone, secret: secret)) }
            writes.merge(try next.startingEpoch((secrets.keys.max() ?? 0) + 1, of: zone))
        }
        return (next, writes)
    }
}
