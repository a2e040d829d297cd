import DocSyncCore
import Foundation

extension StoreAlgorithm {
    /// Every zone in use, sorted by the bytes of its name: a moved zone, only a redirect,
    /// is not listed.
    public static func listZones(_ rows: some StoreRows) throws -> [ZoneID] {
        try rows.allZones().filter { $0.movedTo == nil }.map(\.name)
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { ZoneID($0) }
    }

    /// Creates `zone` with a new incarnation; nothing when it exists already. Throws
    /// `zoneMoved` for a zone that was moved: it is a redirect, and is never made again
    /// (a device that was away follows it instead of writing there).
    public static func createZone<Rows: StoreRows>(_ zone: ZoneID, now: Timestamp, in rows: inout Rows) throws -> StoreOutcome<Void> {
        let seq = try rows.reserveSequence(1)
        if let state = try rows.zoneState(of: zone.name) {
            if let movedTo = state.movedTo { throw SyncError.zoneMoved(zone, to: ZoneID(movedTo)) }
            return .unchanged(())
        }
        var writes = StoreWrites(zone: zone.name, now: now)
        writes.createZone = (rows.newIncarnation(), seq)
        try rows.apply(writes)
        return StoreOutcome((), wrote: true, announces: true)
    }

    /// Deletes `zone` with its records, history and Recently Deleted, or the redirect a
    /// moved zone is; `zoneNotFound` when it does not exist.
    public static func deleteZone<Rows: StoreRows>(_ zone: ZoneID, now: Timestamp, in rows: inout Rows) throws -> StoreOutcome<Void> {
        _ = try rows.reserveSequence(1)
        guard try rows.zoneState(of: zone.name) != nil else { throw SyncError.zoneNotFound(zone) }
        var writes = StoreWrites(zone: zone.name, now: now)
        writes.deleteZone = true
        try rows.apply(writes)
        return StoreOutcome((), wrote: true, announces: true)
    }
}
