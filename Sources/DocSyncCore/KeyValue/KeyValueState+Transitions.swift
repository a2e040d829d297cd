/// What happens to a key-value store's local state: the decisions of SPEC §12, pure.
public enum KeyValueEvent: Sendable {
    /// A program writes `value` to `key` (`nil` removes it), at `time`.
    case write(KeyValueKey, JSONValue?, time: Timestamp)
    /// A fetch completed: every change after the state's token (`complete`: every value the
    /// server holds, fetched from the beginning), and the token after them (`nil`: the
    /// server has no such store yet).
    case fetched(changes: [KeyValueKey: JSONValue?], complete: Bool, token: ChangeToken?)
    /// The server answered a send: writes saved (the key, the sequence of the write sent,
    /// and what was saved), and writes it refused for good (with why).
    case sent(saved: [KeyValueSentWrite], refused: [KeyValueSentWrite])
    /// The daemon runs with `account` (`KeyValueAccount`).
    case signedIn(account: String)
    /// The store syncs in the zone `zone` from now on (`nil`: its own plain zone): the
    /// account became encrypted (SPEC §13). With `carry`, this device brings the values
    /// there (it moves the store: every value becomes a write to send); without, it follows
    /// a store moved by another device (what it has not sent yet gives way to what the new
    /// zone holds, as before a first fetch). `time`: when the carried writes are made.
    case rezoned(zone: String?, carry: Bool, time: Timestamp)
}

/// One write as it was sent, for `KeyValueEvent.sent`.
public struct KeyValueSentWrite: Hashable, Sendable {
    public var key: KeyValueKey
    public var sequence: Int64
    public var value: JSONValue?

    public init(key: KeyValueKey, sequence: Int64, value: JSONValue?) {
        self.key = key
        self.sequence = sequence
        self.value = value
    }
}

extension KeyValueState {
    /// The state after `event`, and what to announce (each reason once, its keys sorted).
    ///
    /// - A write over a limit (`KeyValueLimits`) throws `quotaExceeded`, and a write of
    ///   `null` throws `invalidArguments` (remove the key instead), changing nothing; any other write becomes pending at once, announced to no one (a program
    ///   hears of changes from elsewhere only).
    /// - A fetch updates the server's values. A pending write stays over a key the fetch
    ///   changed (it is sent later, so it comes later in the server's order and wins) —
    ///   except before the first fetch: a pending write to a key the server holds is
    ///   dropped for the server's value (`initialSyncChange`). A key whose visible value
    ///   changed otherwise is `serverChange` (`accountChange` during the first fetch after
    ///   an account change). A complete fetch also removes the keys it does not hold.
    /// - A saved write becomes the server's value and stops being pending (unless written
    ///   again since); a refused write stops being pending and its key shows the server's
    ///   value again (`quotaViolationChange`).
    /// - Moving to another zone (`rezoned`) announces nothing: the values stay visible; the
    ///   first fetch there (complete, since the token is dropped) says what changed.
    /// - Another account than the recorded one drops every value, pending or not
    ///   (`accountChange` for the keys that were visible), and starts over with a first
    ///   fetch; the first account seen is recorded without an announcement.
    public func applying(_ event: KeyValueEvent) throws(SyncError) -> (state: KeyValueState, announcements: [KeyValueChange]) {
        var next = self
        var announced: [KeyValueChangeReason: Set<KeyValueKey>] = [:]
        switch event {
        case .write(let key, let value, let time):
            if value == .null {
                throw SyncError(.invalidArguments, "null is no value; remove the key \(key.name.debugDescription) instead")
            }
            if let value {
                let current = values.mapValues(\.byteCount)
                if let problem = KeyValueLimits.problem(writing: [(key, value.byteCount)], over: current) {
                    throw SyncError(.quotaExceeded, "\(store): \(problem); nothing was changed")
                }
            }
            next.pending[key] = Pending(value: value, sequence: nextSequence, modified: time)
            next.nextSequence += 1
        case .fetched(var changes, let complete, let token):
            if complete {
                for key in server.keys where changes[key] == nil { changes[key] = .some(nil) }
            }
            let reason: KeyValueChangeReason = accountChanged ? .accountChange : .serverChange
            for (key, value) in changes {
                let before = next.value(of: key)
                next.server[key] = value
                if next.pending[key] != nil {
                    guard !hasFetched, value != nil else { continue }
                    next.pending[key] = nil
                    if next.value(of: key) != before { announced[accountChanged ? .accountChange : .initialSyncChange, default: []].insert(key) }
                } else if next.value(of: key) != before {
                    announced[reason, default: []].insert(key)
                }
            }
            next.token = token
            next.hasFetched = true
            next.accountChanged = false
        case .sent(let saved, let refused):
            for write in saved {
                next.server[write.key] = write.value
                if next.pending[write.key]?.sequence == write.sequence { next.pending[write.key] = nil }
            }
            for write in refused where next.pending[write.key]?.sequence == write.sequence {
                let before = next.value(of: write.key)
                next.pending[write.key] = nil
                if next.value(of: write.key) != before { announced[.quotaViolationChange, default: []].insert(write.key) }
            }
        case .rezoned(let zone, let carry, let time):
            if zone != self.zone {
                next.zone = zone
                next.token = nil
                next.accountChanged = false
                if !carry { next.hasFetched = false }
            }
            if carry {
                // Carried again after a restart cut a move short: sending a value twice is harmless.
                for (key, value) in server.sorted(by: { $0.key < $1.key }) where pending[key] == nil {
                    next.pending[key] = Pending(value: value, sequence: next.nextSequence, modified: time)
                    next.nextSequence += 1
                }
            }
        case .signedIn(let account):
            guard let recorded = self.account else {
                next.account = account
                break
            }
            guard recorded != account else { break }
            next = KeyValueState(store: store, account: account)
            next.nextSequence = nextSequence
            next.accountChanged = true
            if !values.isEmpty { announced[.accountChange] = Set(values.keys) }
        }
        let order: [KeyValueChangeReason] = [.accountChange, .initialSyncChange, .serverChange, .quotaViolationChange]
        let announcements = order.compactMap { reason in
            announced[reason].map { KeyValueChange(store: store, reason: reason, keys: $0.sorted().map(\.name)) }
        }
        return (next, announcements)
    }
}
