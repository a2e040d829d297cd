/// What a device knows of one key-value store (SPEC §12), as a plain value: the server's
/// values as last fetched or acknowledged, the local writes not yet acknowledged, the
/// change token, whether the first fetch happened, and the account these belong to.
///
/// The values a program sees (`values`) are the pending writes over the server's values.
/// Every change goes through `applying(_:)` (`KeyValueState+Transitions`), which says what
/// to announce; the daemon persists the result and sends `outbox`.
public struct KeyValueState: Hashable, Sendable {
    /// A local write the server has not acknowledged: `value` nil removes the key.
    public struct Pending: Hashable, Sendable {
        public var value: JSONValue?
        /// Numbers this device's writes in order: an acknowledgement settles only the write it sent.
        public var sequence: Int64
        public var modified: Timestamp

        public init(value: JSONValue?, sequence: Int64, modified: Timestamp) {
            self.value = value
            self.sequence = sequence
            self.modified = modified
        }
    }

    public var store: KeyValueStoreID
    /// The account the values belong to (`KeyValueAccount`); `nil` before one was recorded.
    public var account: String?
    public var server: [KeyValueKey: JSONValue] = [:]
    public var pending: [KeyValueKey: Pending] = [:]
    /// Where the next fetch starts; `nil`: from the beginning.
    public var token: ChangeToken?
    /// Whether a fetch of the store has completed (for this account). Until then nothing
    /// is sent, and a write to a key the fetch finds on the server is replaced.
    public var hasFetched = false
    /// The account changed and the new account's first fetch has not completed: what it
    /// brings is announced as `accountChange`.
    public var accountChanged = false
    /// The sequence the next local write takes.
    public var nextSequence: Int64 = 1
    /// The zone on the wire that `server` and `token` are of: `nil` for the store's own
    /// (plain) zone, the opaque one once the account is encrypted (SPEC §13).
    public var zone: String?

    public init(store: KeyValueStoreID, account: String? = nil) {
        self.store = store
        self.account = account
    }

    /// The values a program sees: each pending write over the server's value.
    public var values: [KeyValueKey: JSONValue] {
        var values = server
        for (key, write) in pending { values[key] = write.value }
        return values
    }

    /// The value a program sees for `key`.
    public func value(of key: KeyValueKey) -> JSONValue? {
        if let write = pending[key] { return write.value }
        return server[key]
    }

    /// The writes to send, by key: nothing before the first fetch completed.
    public var outbox: [(key: KeyValueKey, write: Pending)] {
        guard hasFetched else { return [] }
        return pending.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
