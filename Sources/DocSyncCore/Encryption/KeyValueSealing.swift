import Crypto
import Foundation

/// A key-value store of an encrypted account as the server holds it (SPEC §12, §13): in the
/// store's opaque zone (`~e.` and 26 letters), one sealed record per key, named by a keyed
/// MAC of the key, whose blob holds the `Value` record a plain store would hold (the key,
/// the JSON, when and by which device it was written) and a version that only grows.
///
/// What a caller may rely on: `recordName(of:)` is the same on every device of the account
/// and tells the server nothing of the key; `seal` and `open` are inverse, and `open` accepts
/// only a blob sealed for that record name in that zone by a holder of the store's keys,
/// holding a valid key whose record name is the wire's and a JSON value. The visible `size`
/// of a sealed Value is its JSON's length (the server applies the store's limits to it).
public struct KeyValueSealing: Sendable {
    /// The store's zone on the wire.
    public let zone: ZoneID
    private let nameKey: SymmetricKey

    /// The sealing of the store whose opaque zone is `zone`, record names keyed by the
    /// account's zone-name secret (`AccountKeys.zoneNameSecret`).
    public init(zone: ZoneID, nameSecret: SymmetricKey) {
        self.zone = zone
        nameKey = FolderEpochKeys.derive(nameSecret, "kv-record-name")
    }

    /// The record name of `key` on the wire: `v` and 26 base32 letters of
    /// HMAC-SHA256(key of `kv-record-name`, zone ‖ 0 ‖ key).
    public func recordName(of key: KeyValueKey) -> String {
        var message = Array(zone.name.utf8)
        message.append(0)
        message.append(contentsOf: key.name.utf8)
        let mac = Data(HMAC<SHA256>.authenticationCode(for: message, using: nameKey))
        return "v" + Base32.encode(mac).prefix(26)
    }

    /// The wire record that writes `value` to `key`, sealed with `keys` as `version`.
    public func seal(_ value: JSONValue, for key: KeyValueKey, modified: Timestamp, device: String, version: UInt64, with keys: FolderEpochKeys) -> Record {
        let text = value.text
        let name = recordName(of: key)
        let plain = Record(id: RecordID(zone: zone, recordName: name), type: .value, path: RelativePath(key.recordName),
                           size: Int64(text.utf8.count), modified: modified, mode: 0, lastModifiedBy: device, value: text)
        var wire = Record.sealing(plain, version: version, with: keys, zone: zone)
        wire.size = Int64(text.utf8.count)
        return wire
    }

    /// The key, value and version `wire` holds, opened with `keyring`. Throws
    /// `authenticationFailed` for a blob that does not open here or names another key,
    /// `downgraded` for a plain record, `missingKey` for an epoch not held, `malformed` for
    /// a blob that is no Value.
    public func open(_ wire: Record, with keyring: FolderKeyring) throws(EncryptionError) -> (key: KeyValueKey, value: JSONValue, version: UInt64) {
        guard wire.id.zone == zone else { throw EncryptionError(.authenticationFailed, "\(wire.id) is a record of another zone than \(zone.name)") }
        let opened = try wire.opened(with: keyring)
        guard opened.record.type == .value, let text = opened.record.value, let value = try? JSONValue(parsing: text) else {
            throw EncryptionError(.malformed, "the record \(wire.id.recordName) opens to no key-value store Value")
        }
        guard let key = KeyValueKey(recordName: opened.record.path.string), recordName(of: key) == wire.id.recordName else {
            throw EncryptionError(.authenticationFailed, "the blob of \(wire.id.recordName) holds another key's value")
        }
        return (key, value, opened.version)
    }
}
