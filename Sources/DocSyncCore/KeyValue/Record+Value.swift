import Foundation

/// `Value` records: one key of a key-value store (SPEC §12).
///
/// A Value lives only in a key-value zone (`ZoneID.isKeyValueStore`), and such a zone
/// holds only Values. Its record name encodes its key (`KeyValueKey.recordName`), its
/// `path` is that same name (a Value has no place in a folder), `value` is the canonical
/// JSON text (`JSONValue.text`), `size` its bytes, `modified` when it was written and
/// `lastModifiedBy` the device that wrote it; mode 0, no digest, asset or link target.
/// Stores save Values unconditionally: the change tag a save carries is ignored, and the
/// last save of a key to reach the store wins.
extension Record {
    /// The Value record that writes `value` to `key` of `store`.
    public static func value(_ value: JSONValue, for key: KeyValueKey, in store: KeyValueStoreID,
                             modified: Timestamp, device: String) -> Record {
        let text = value.text
        let name = key.recordName
        return Record(id: RecordID(zone: store.zone, recordName: name), type: .value, path: RelativePath(name),
                      size: Int64(text.utf8.count), modified: modified, mode: 0, lastModifiedBy: device, value: text)
    }

    /// The key a Value record holds, `nil` for any other record.
    public var keyValueKey: KeyValueKey? {
        type == .value ? KeyValueKey(recordName: id.recordName) : nil
    }

    /// The JSON a Value record holds, `nil` for any other record or text that is not JSON.
    public var jsonValue: JSONValue? {
        guard type == .value, let value else { return nil }
        return try? JSONValue(parsing: value)
    }
}
