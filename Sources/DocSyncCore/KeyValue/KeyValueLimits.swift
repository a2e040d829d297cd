/// The limits of a key-value store (SPEC §12, NSUbiquitousKeyValueStore's): a key is at
/// most 64 bytes (`KeyValueKey`), a value at most 1,000,000 bytes, a store at most 1,024
/// keys and 1,000,000 bytes. A value's bytes are those of its canonical JSON
/// (`JSONValue.text`); a store's bytes are the sum of its values' bytes.
///
/// The device checks them before it takes a write (refused at once, nothing changed), and
/// every store checks them again before it saves one (`quotaExceeded` for that item): two
/// devices that wrote offline can together exceed what each alone kept within.
public enum KeyValueLimits {
    public static let maximumKeys = 1_024
    public static let maximumValueBytes = 1_000_000
    public static let maximumStoreBytes = 1_000_000

    /// Why writing `sizes` (key → the value's bytes, `nil` removing the key) over a store
    /// holding `current` (key → bytes) breaks a limit, or `nil` when it does not. A write
    /// that neither adds a key nor grows the store is never refused, so a store over a
    /// limit (a limit lowered) can still be made smaller.
    public static func problem(writing sizes: [(key: KeyValueKey, bytes: Int?)], over current: [KeyValueKey: Int]) -> String? {
        var after = current
        for (key, bytes) in sizes { after[key] = bytes }
        for (key, bytes) in sizes {
            if let bytes, bytes > maximumValueBytes {
                return "the value of \(key.name.debugDescription) is \(bytes) bytes; a value is at most \(maximumValueBytes) bytes"
            }
        }
        let keysBefore = current.count, keysAfter = after.count
        if keysAfter > maximumKeys, keysAfter > keysBefore {
            return "the store would hold \(keysAfter) keys; a store holds at most \(maximumKeys) (remove some first)"
        }
        let bytesBefore = current.values.reduce(0, +), bytesAfter = after.values.reduce(0, +)
        if bytesAfter > maximumStoreBytes, bytesAfter > bytesBefore {
            return "the store would hold \(bytesAfter) bytes; a store holds at most \(maximumStoreBytes) bytes of values (remove some first)"
        }
        return nil
    }
}
