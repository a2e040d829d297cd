import Crypto
import Foundation

extension ZoneID {
    /// Whether this is an encrypted folder's zone: its name opaque (`e.` and the letters).
    public var isEncryptedFolder: Bool { name.hasPrefix("e.") }
}

extension EncryptionKeyPair {
    /// The name on the wire of this account's encrypted zone `zone` (SPEC §13): `e.` and 26
    /// base32 letters of HMAC-SHA256(`zone-name` key, the zone's name), the key HKDF-SHA256 of
    /// the account's 64 private bytes (salt `docsync/1`, info `zone-name`). Every device of
    /// the account computes the same name; the server learns nothing of the folder id. A
    /// key-value store's zone keeps its `~` (the server saves its records unconditionally):
    /// `~e.` and the letters.
    public func opaqueZoneName(for zone: ZoneID) -> ZoneID {
        Self.opaqueZoneName(for: zone, secret: zoneNameSecret)
    }

    /// The key zone names are MACs under: HKDF-SHA256 of the 64 private bytes, info `zone-name`.
    public var zoneNameSecret: SymmetricKey { FolderEpochKeys.derive(SymmetricKey(data: privateBytes), "zone-name") }

    /// The opaque name of `zone` under `secret` (see `opaqueZoneName(for:)`).
    public static func opaqueZoneName(for zone: ZoneID, secret: SymmetricKey) -> ZoneID {
        let mac = Data(HMAC<SHA256>.authenticationCode(for: Array(zone.name.utf8), using: secret))
        let letters = String(Base32.encode(mac).prefix(26))
        return ZoneID((zone.isKeyValueStore ? ZoneID.keyValuePrefix : "") + "e." + letters)
    }
}
