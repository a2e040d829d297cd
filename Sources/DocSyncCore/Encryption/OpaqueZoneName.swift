import Crypto
import Foundation

extension EncryptionKeyPair {
    /// The name on the wire of this account's encrypted zone `zone` (SPEC §13): `e.` and 26
    /// base32 letters of HMAC-SHA256(`zone-name` key, the zone's name), the key HKDF-SHA256 of
    /// the account's 64 private bytes (salt `docsync/1`, info `zone-name`). Every device of
    /// the account computes the same name; the server learns nothing of the folder id. A
    /// key-value store's zone keeps its `~` (the server saves its records unconditionally):
    /// `~e.` and the letters.
    public func opaqueZoneName(for zone: ZoneID) -> ZoneID {
        let key = FolderEpochKeys.derive(SymmetricKey(data: privateBytes), "zone-name")
        let mac = Data(HMAC<SHA256>.authenticationCode(for: Array(zone.name.utf8), using: key))
        let letters = String(Base32.encode(mac).prefix(26))
        return ZoneID((zone.isKeyValueStore ? ZoneID.keyValuePrefix : "") + "e." + letters)
    }
}
