import DocSyncCore
import DocSyncStorage
import Foundation
import PostgresNIO

/// Moving a zone into another (SPEC §13, `StorageBackend.moveZone`) in the scale-out store.
extension ScaleOutBackend {
    /// How long a move waits for a collection of any instance to finish before `zoneBusy`.
    static let moveWaitsForCollector: Duration = .seconds(60)

    /// The store algorithm empties the zone and keeps it as a redirect, in one transaction
    /// that notifies every instance's streams of the zone at its commit; then what only it
    /// referenced is collected at once (`ScaleOutCollector.collect(_:of:_:)`), every pack
    /// that held such a chunk rewritten in the bucket. The collectors' lock is held from
    /// before the move until its collection is over, so no other collection runs in between.
    /// A collection that stops (a damaged manifest node of another zone) leaves the zone
    /// moved and its chunks for a later collection, and says so in the log.
    public func moveZone(_ zone: ZoneID, to target: ZoneID) async throws(SyncError) {
        try StoreAlgorithm.admitMove(zone, to: target)
        let now = storeNow(), account = self.account, logger = self.logger
        let collector = ScaleOutCollector(store: store)
        let what = "move zone \(zone) into \(target)"
        try await collector.holdingLock(what, timeout: Self.moveWaitsForCollector) { connection in
            let outcome = try await connection.transaction(logger) { connection in
                let outcome = try await AnsweredRows.run({ rows in try StoreAlgorithm.moveZone(zone, to: target, now: now, in: &rows) },
                                                         over: ScaleOutRows(connection: connection, account: account, logger: logger))
                return (outcome, commit: outcome.wrote)
            }
            guard outcome.wrote else { return }
            let report = try await collector.collect(outcome.value, of: account, connection)
            if let reason = report.stoppedBecause {
                logger.error("a moved zone's chunks were not collected: the collection stopped", metadata: [
                    "account": "\(account)", "zone": "\(zone)", "reason": "\(reason)"])
            }
            logger.info("moved a zone", metadata: [
                "account": "\(account)", "zone": "\(zone)", "target": "\(target)", "collection": "\(report.summary)"])
        }
    }
}
