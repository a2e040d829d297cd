import DocSyncCore
import Foundation

/// The decisions of a store, written once (SPEC §4a, §5, §8): saves and deletions with
/// change tags and atomic batches, pages of changes with tokens, tombstones, Recently
/// Deleted and its recovery and purge, the versions saves replace, zones. Each operation
/// reads what it needs through `StoreRows`, decides, and writes through one
/// `StoreRows.apply`, within the caller's transaction; it returns what it did as a
/// `StoreOutcome`, so the caller knows whether to commit and whether to notify.
///
/// Every store runs it: the embedded store (`LocalBackend`) and the in-memory store of the
/// simulations over their rows directly, the scale-out store through `AnsweredRows`. Checks
/// that need no stored state (`admit`) run before the transaction, outside any lock.
public enum StoreAlgorithm {
    /// The state of a zone in use: `zoneNotFound` when it does not exist, `zoneMoved` naming
    /// where it went when it was moved (every operation on a redirect but its deletion).
    static func requireZone(_ zone: ZoneID, _ rows: some StoreRows) throws -> ZoneState {
        guard let state = try rows.zoneState(of: zone.name) else { throw SyncError.zoneNotFound(zone) }
        if let movedTo = state.movedTo { throw SyncError.zoneMoved(zone, to: ZoneID(movedTo)) }
        return state
    }

    /// The token of a client that has every change of `zone` up to `seq`.
    static func token(_ zone: ZoneID, _ state: ZoneState, seq: Int64, account: Int64?) -> ChangeToken {
        StoreChangeToken(account: account, zone: zone.name, incarnation: state.incarnation, seq: seq).token
    }

    /// Whether `known` is the token of a client that has every change of `zone` in `state`.
    static func isCurrent(_ known: ChangeToken?, _ zone: ZoneID, _ state: ZoneState, account: Int64?) -> Bool {
        guard let known, let decoded = try? StoreChangeToken(known) else { return false }
        return decoded.account ?? account == account && decoded.zone == zone.name && decoded.incarnation == state.incarnation
            && decoded.seq == state.lastSeq
    }
}

/// What an operation of `StoreAlgorithm` did: its answer, and whether it wrote (commit
/// then, roll back otherwise) and whether other clients must hear of it (notify after
/// the commit).
public struct StoreOutcome<Value: Sendable>: Sendable {
    public var value: Value
    public var wrote: Bool
    public var announces: Bool

    public init(_ value: Value, wrote: Bool, announces: Bool) {
        self.value = value
        self.wrote = wrote
        self.announces = announces
    }

    /// An answer that wrote nothing.
    public static func unchanged(_ value: Value) -> StoreOutcome { StoreOutcome(value, wrote: false, announces: false) }
}
