import DocSyncCore
import Foundation

extension StoreAlgorithm {
    /// Every zone, sorted by the bytes of its name.
    public static func listZones(_ rows: some StoreRows) throws -> [ZoneID] {
        try rows.zoneNames().sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { ZoneID($0) }
    }

    /// Creates `zone` with a new incarnation; nothing when it exists already.
    public static func createZone<Rows: StoreRows>(_ zone: ZoneID, now: Timestamp, in rows: inout Rows) throws -> StoreOutcome<Void> {
        let seq = try rows.reserveSequence(1)
        guard try rows.zoneState(of: zone.name) == nil else { return .unchanged(()) }
        var writes = StoreWrites(zone: zone.name, now: now)
        writes.createZone = (rows.newIncarnation(), seq)
        try rows.apply(writes)
        return StoreOutcome((), wrote: true, announces: true)
    }

    /// Deletes `zone` with its records, history and Recently Deleted; `zoneNotFound` when
    /// it does not exist.
    public static func deleteZone<Rows: StoreRows>(_ zone: ZoneID, now: Timestamp, in rows: inout Rows) throws -> StoreOutcome<Void> {
        _ = try rows.reserveSequence(1)
        _ = try requireZone(zone, rows)
        var writes = StoreWrites(zone: zone.name, now: now)
        writes.deleteZone = true
        try rows.apply(writes)
        return StoreOutcome((), wrote: true, announces: true)
    }
}
