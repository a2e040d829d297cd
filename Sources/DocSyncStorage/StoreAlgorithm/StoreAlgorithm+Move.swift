import DocSyncCore
import Foundation

/// Moving a zone into another (SPEC §13: a folder that syncs turned encrypted), leaving a
/// redirect (`StorageBackend.moveZone`).
extension StoreAlgorithm {
    /// `invalidArguments` when a zone would be moved into itself, before any transaction.
    public static func admitMove(_ zone: ZoneID, to target: ZoneID) throws(SyncError) {
        guard zone != target else {
            throw SyncError(.invalidArguments, "cannot move zone \(zone.name.debugDescription) into itself; name the zone its records were saved into")
        }
    }

    /// Moves `zone` into `target`: everything `zone` holds goes — live records, tombstones,
    /// Recently Deleted, replaced versions — and it stays as a redirect naming `target`
    /// (every later operation on it but its deletion throws `zoneMoved`), its last change
    /// moved on so that its subscribers hear of it. Returns what the removed versions
    /// referenced (`ReleasedChunks`), which the store collects at once.
    ///
    /// Moving a zone that was moved into `target` already changes nothing and releases
    /// nothing (a retried call). Throws `invalidArguments` when the zones are the same,
    /// `zoneNotFound` when either does not exist, and `zoneMoved` when `zone` was moved into
    /// another zone or `target` was moved itself (naming where each went).
    public static func moveZone<Rows: StoreRows>(_ zone: ZoneID, to target: ZoneID, now: Timestamp,
                                                 in rows: inout Rows) throws -> StoreOutcome<ReleasedChunks> {
        try admitMove(zone, to: target)
        let seq = try rows.reserveSequence(1)
        guard let state = try rows.zoneState(of: zone.name) else { throw SyncError.zoneNotFound(zone) }
        if let movedTo = state.movedTo {
            guard movedTo.bytesEqual(target.name) else { throw SyncError.zoneMoved(zone, to: ZoneID(movedTo)) }
            return .unchanged(ReleasedChunks())
        }
        _ = try requireZone(target, rows)
        var released = ReleasedChunks()
        for body in try rows.keptBodies(in: zone.name) { try released.release(body: body) }
        var writes = StoreWrites(zone: zone.name, now: now)
        writes.moveTo = target.name
        writes.lastSeq = seq
        try rows.apply(writes)
        return StoreOutcome(released, wrote: true, announces: true)
    }
}
