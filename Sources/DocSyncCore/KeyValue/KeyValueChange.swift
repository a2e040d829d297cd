/// Why a key-value store's values changed from elsewhere (NSUbiquitousKeyValueStore's
/// change reasons, SPEC §12).
public enum KeyValueChangeReason: String, Hashable, Codable, Sendable, CaseIterable {
    /// Another device's write reached this one.
    case serverChange
    /// Before this device's first fetch of the store, it wrote keys the server already
    /// held: the server's values replaced those writes.
    case initialSyncChange
    /// The server refused a write of this device (two devices offline together went over a
    /// limit): the key is back to the server's value.
    case quotaViolationChange
    /// The daemon now runs with another account than the store's local values belonged
    /// to: they were replaced by the new account's.
    case accountChange
}

/// A change from elsewhere as `docs-status kv watch` prints it: why, and which keys
/// (sorted by their bytes), with the store's sequence number for it (strictly increasing,
/// kept across restarts; 0 before the daemon numbered it).
public struct KeyValueChange: Hashable, Codable, Sendable {
    public var store: KeyValueStoreID
    public var sequence: Int64
    public var reason: KeyValueChangeReason
    public var keys: [String]

    public init(store: KeyValueStoreID, sequence: Int64 = 0, reason: KeyValueChangeReason, keys: [String]) {
        self.store = store
        self.sequence = sequence
        self.reason = reason
        self.keys = keys
    }
}
