import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Synchronization

/// A server that attacks an encrypted folder (SPEC §13), between one device and the store:
/// it passes every call through to `inner` and, once armed, serves what it should not. It
/// keeps every sealed record that passed through it (saves and pages), so it can replay one,
/// counts what the device asked of it, and can keep the device from fetching (`blind`).
/// The attacks themselves are in `EncryptedFolderTests+MaliciousServer.swift`.
final class TamperingBackend: StorageBackend {
    /// What the server does to what the device fetches.
    enum Attack: Sendable {
        /// Records named `victim` are served with the sealed blob (and chunk list) of the
        /// record `source` has on the server now.
        case swapBlobs(victim: String, source: String)
        /// `record` is added to the next page of changes served (a replay of an earlier
        /// sealed version, a plain record, one sealed under another key).
        case inject(Record)
        /// A download of the chunk `victim` is served the stored body of `source`.
        case swapChunkBodies(victim: SHA256Digest, source: SHA256Digest)
        /// Records named `victim`, in pages and in lookups by name, are served as `forge`
        /// makes them of what the server holds (a chunk list reordered or cut, another cipher
        /// suite named, a blob sealed for another zone).
        case rewrite(victim: String, forge: @Sendable (Record) -> Record)
        /// The first page of changes that holds `holding` is served with every one of its
        /// records as `forge` makes it (the whole page claimed plain); once.
        case rewritePage(holding: String, forge: @Sendable (Record) -> Record)
        /// Every chunk the device downloads is served as `forge` makes it of its id and stored
        /// body (`nil`: as stored): a manifest node changed or replaced, another zone's body.
        case rewriteChunks(forge: @Sendable (SHA256Digest, Data) -> Data?)
    }

    let inner: any StorageBackend
    private struct State {
        var attack: Attack?
        var blind = false
        /// Every sealed record seen on its way through, by record name, oldest first.
        var history: [String: [Record]] = [:]
        var modifyCalls = 0
        var chunkUploads = 0
        var fetches = 0
    }

    private let state = Mutex(State())

    init(wrapping inner: any StorageBackend) { self.inner = inner }

    func arm(_ attack: Attack?) { state.withLock { $0.attack = attack } }

    /// While true, every fetch of changes fails as if the network were down.
    func setBlind(_ blind: Bool) { state.withLock { $0.blind = blind } }

    /// The sealed records of `recordName` seen so far, oldest first.
    func history(of recordName: String) -> [Record] { state.withLock { $0.history[recordName] ?? [] } }

    var modifyCalls: Int { state.withLock { $0.modifyCalls } }
    var chunkUploads: Int { state.withLock { $0.chunkUploads } }
    var fetches: Int { state.withLock { $0.fetches } }

    private func remember(_ records: [Record]) {
        state.withLock { state in
            for record in records where record.type == .sealed {
                if state.history[record.id.recordName]?.last != record { state.history[record.id.recordName, default: []].append(record) }
            }
        }
    }

    // MARK: records

    func modifyRecords(_ batch: RecordBatch) async throws(SyncError) -> ModifyResult {
        state.withLock { $0.modifyCalls += 1 }
        remember(batch.saves)
        let result = try await inner.modifyRecords(batch)
        remember(Array(result.saved.values))
        return result
    }

    func fetchChanges(in zone: ZoneID, since token: ChangeToken?, limit: Int) async throws(SyncError) -> ChangeSet {
        let (blind, attack) = state.withLock { state -> (Bool, Attack?) in
            state.fetches += 1
            return (state.blind, state.attack)
        }
        if blind { throw SyncError(.networkUnavailable, "injected: the device cannot reach the server") }
        var page = try await inner.fetchChanges(in: zone, since: token, limit: limit)
        remember(page.changed)
        switch attack {
        case .swapBlobs(let victim, let source):
            page.changed = try await page.changed.asyncMap { record throws(SyncError) in
                record.id.recordName == victim ? try await self.swapped(record, with: source) : record
            }
        case .inject(let record):
            // Served once, with the next page.
            page.changed.append(record)
            state.withLock { $0.attack = nil }
        case .rewrite(let victim, let forge):
            page.changed = page.changed.map { $0.id.recordName == victim ? forge($0) : $0 }
        case .rewritePage(let holding, let forge):
            guard page.changed.contains(where: { $0.id.recordName == holding }) else { break }
            page.changed = page.changed.map(forge)
            state.withLock { $0.attack = nil }
        case .swapChunkBodies, .rewriteChunks, nil:
            break
        }
        return page
    }

    func fetchRecords(_ ids: [RecordID]) async throws(SyncError) -> [RecordID: Record] {
        var records = try await inner.fetchRecords(ids)
        switch state.withLock({ $0.attack }) {
        case .swapBlobs(let victim, let source):
            for (id, record) in records where id.recordName == victim { records[id] = try await swapped(record, with: source) }
        case .rewrite(let victim, let forge):
            for (id, record) in records where id.recordName == victim { records[id] = forge(record) }
        default:
            break
        }
        return records
    }

    /// `record` carrying the blob, chunk list and size of the record `source` on the server.
    private func swapped(_ record: Record, with source: String) async throws(SyncError) -> Record {
        guard let other = try await inner.fetchRecords([RecordID(zone: record.id.zone, recordName: source)]).values.first else { return record }
        var forged = record
        forged.sealed = other.sealed
        forged.asset = other.asset
        forged.size = other.size
        return forged
    }

    // MARK: chunks

    func uploadChunks(_ chunks: [ChunkUpload]) async throws(SyncError) {
        state.withLock { $0.chunkUploads += chunks.count }
        try await inner.uploadChunks(chunks)
    }

    func uploadChunk(_ digest: SHA256Digest, bytes: Data) async throws(SyncError) {
        state.withLock { $0.chunkUploads += 1 }
        try await inner.uploadChunk(digest, bytes: bytes)
    }

    func downloadChunk(_ digest: SHA256Digest) async throws(SyncError) -> Data {
        try await downloadChunks([digest])[digest]!
    }

    func downloadChunks(_ digests: [SHA256Digest]) async throws(SyncError) -> [SHA256Digest: Data] {
        var bodies = try await inner.downloadChunks(digests)
        switch state.withLock({ $0.attack }) {
        case .swapChunkBodies(let victim, let source) where bodies[victim] != nil:
            bodies[victim] = try await inner.downloadChunks([source])[source]
        case .rewriteChunks(let forge):
            for (id, body) in bodies { if let forged = forge(id, body) { bodies[id] = forged } }
        default:
            break
        }
        return bodies
    }

    // MARK: passed through

    func createZone(_ zone: ZoneID) async throws(SyncError) { try await inner.createZone(zone) }
    func deleteZone(_ zone: ZoneID) async throws(SyncError) { try await inner.deleteZone(zone) }
    func listZones() async throws(SyncError) -> [ZoneID] { try await inner.listZones() }
    func moveZone(_ zone: ZoneID, to target: ZoneID) async throws(SyncError) { try await inner.moveZone(zone, to: target) }
    func missingChunks(_ digests: [SHA256Digest]) async throws(SyncError) -> Set<SHA256Digest> { try await inner.missingChunks(digests) }
    func changeNotifications() -> AsyncStream<ChangeNotification> { inner.changeNotifications() }
    func listDeleted(in zone: ZoneID, since: Timestamp?) async throws(SyncError) -> [DeletedRecord] { try await inner.listDeleted(in: zone, since: since) }
    func recoverDeleted(_ recoveries: [DeletedRecordRecovery], in zone: ZoneID) async throws(SyncError) -> ModifyResult {
        try await inner.recoverDeleted(recoveries, in: zone)
    }
    func purgeDeleted(in zone: ZoneID, ids: [RecordID]?) async throws(SyncError) -> Int { try await inner.purgeDeleted(in: zone, ids: ids) }
    func usage() async throws(SyncError) -> StorageUsage { try await inner.usage() }
}

extension Array {
    /// `transform` applied to each element in order, awaiting each.
    func asyncMap<T>(_ transform: (Element) async throws(SyncError) -> T) async throws(SyncError) -> [T] {
        var mapped: [T] = []
        mapped.reserveCapacity(count)
        for element in self { mapped.append(try await transform(element)) }
        return mapped
    }
}
