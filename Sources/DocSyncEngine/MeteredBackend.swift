import DocSyncCore
import DocSyncStorage
import Foundation

/// The backend as an engine sees it, counting the chunk bytes that cross it into the
/// engine's metrics (`EngineMeasurement.sent`, `.received`): one measurement per call that
/// moved chunks (a batch), after it succeeded. Everything else passes through unchanged.
///
/// For an encrypted folder it sits beneath the `SealingBackend`, so it counts the sealed
/// bytes, as they travel.
final class MeteredBackend: StorageBackend {
    let base: any StorageBackend
    let metrics: EngineMetrics

    init(base: any StorageBackend, metrics: EngineMetrics) {
        self.base = base
        self.metrics = metrics
    }

    // MARK: counted

    func uploadChunk(_ digest: SHA256Digest, bytes: Data) async throws(SyncError) {
        try await base.uploadChunk(digest, bytes: bytes)
        metrics.record(.sent(bytes: bytes.count))
    }

    func uploadChunks(_ chunks: [ChunkUpload]) async throws(SyncError) {
        try await base.uploadChunks(chunks)
        let bytes = chunks.reduce(0) { $0 + $1.bytes.count }
        if bytes > 0 { metrics.record(.sent(bytes: bytes)) }
    }

    func downloadChunk(_ digest: SHA256Digest) async throws(SyncError) -> Data {
        let data = try await base.downloadChunk(digest)
        metrics.record(.received(bytes: data.count))
        return data
    }

    func downloadChunks(_ digests: [SHA256Digest]) async throws(SyncError) -> [SHA256Digest: Data] {
        let found = try await base.downloadChunks(digests)
        let bytes = found.values.reduce(0) { $0 + $1.count }
        if bytes > 0 { metrics.record(.received(bytes: bytes)) }
        return found
    }

    // MARK: passed through

    func createZone(_ zone: ZoneID) async throws(SyncError) { try await base.createZone(zone) }

    func deleteZone(_ zone: ZoneID) async throws(SyncError) { try await base.deleteZone(zone) }

    func listZones() async throws(SyncError) -> [ZoneID] { try await base.listZones() }

    func moveZone(_ zone: ZoneID, to target: ZoneID) async throws(SyncError) { try await base.moveZone(zone, to: target) }

    func modifyRecords(_ batch: RecordBatch) async throws(SyncError) -> ModifyResult { try await base.modifyRecords(batch) }

    func fetchChanges(in zone: ZoneID, since token: ChangeToken?, limit: Int) async throws(SyncError) -> ChangeSet {
        try await base.fetchChanges(in: zone, since: token, limit: limit)
    }

    func fetchRecords(_ ids: [RecordID]) async throws(SyncError) -> [RecordID: Record] { try await base.fetchRecords(ids) }

    func missingChunks(_ digests: [SHA256Digest]) async throws(SyncError) -> Set<SHA256Digest> { try await base.missingChunks(digests) }

    func changeNotifications() -> AsyncStream<ChangeNotification> { base.changeNotifications() }

    func listDeleted(in zone: ZoneID, since: Timestamp?) async throws(SyncError) -> [DeletedRecord] {
        try await base.listDeleted(in: zone, since: since)
    }

    func recoverDeleted(_ recoveries: [DeletedRecordRecovery], in zone: ZoneID) async throws(SyncError) -> ModifyResult {
        try await base.recoverDeleted(recoveries, in: zone)
    }

    func purgeDeleted(in zone: ZoneID, ids: [RecordID]?) async throws(SyncError) -> Int { try await base.purgeDeleted(in: zone, ids: ids) }

    func usage() async throws(SyncError) -> StorageUsage { try await base.usage() }

    func releaseMemory() { base.releaseMemory() }
}
