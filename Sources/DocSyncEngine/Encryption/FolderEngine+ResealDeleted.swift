import DocSyncCore
import DocSyncStorage
import Foundation

/// Recently Deleted carried into an encrypted zone (SPEC §13: a folder that syncs moved into
/// its encrypted zone keeps what was deleted, re-sealed).
extension FolderEngine {
    /// Copies every Recently Deleted entry of the plain zone `plain` (read from `plainBackend`,
    /// the backend without sealing) into this encrypted folder's zone, sealed: each record
    /// keeps its name, path and times, its content is cut and sealed with the current epoch's
    /// keys, and it is saved and at once deleted, so it is in this zone's Recently Deleted
    /// (deleted now: the retention starts again) and on no device's disk. Entries already
    /// there (a copy cut short and begun again) are skipped; one left live by a copy cut
    /// short is deleted. Returns how many entries were copied.
    ///
    /// Call it while the engine does not run (a running engine could place a copied record
    /// for the moment it lives), and after its first sync of the zone (a joining device
    /// takes a new local file that is exactly a Recently Deleted version for that deletion
    /// arriving late). Throws what the backends throw; `invalidArguments` for a plain folder.
    public func resealRecentlyDeleted(of plain: ZoneID, on plainBackend: any StorageBackend) async throws(SyncError) -> Int {
        guard let keys = try sealingKeys() else {
            throw SyncError(.invalidArguments, "\(configuration.root.path) is not an encrypted folder: nothing is re-sealed into it")
        }
        let zone = configuration.zone
        let copied = Set(try await backend.listDeleted(in: zone, since: nil).map(\.record.id.recordName))
        let entries = try await plainBackend.listDeleted(in: plain, since: nil).filter { !copied.contains($0.record.id.recordName) }
        var done = 0
        for start in stride(from: 0, to: entries.count, by: 100) {
            var saves: [Record] = []
            for entry in entries[start..<min(start + 100, entries.count)] {
                saves.append(try await resealed(entry.record, into: zone, keys: keys, from: plainBackend))
            }
            let result = try await backend.modifyRecords(RecordBatch(zone: zone, saves: saves))
            var deletions: [RecordDeletion] = []
            for record in saves {
                if let error = result.failed[record.id], error.code != .serverRecordChanged {
                    logger.warning("a deleted item could not be carried into the encrypted zone", metadata: ["path": "\(record.path)", "error": "\(error.message)"])
                    continue
                }
                deletions.append(RecordDeletion(id: record.id, device: configuration.device))
            }
            let removed = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: deletions))
            done += removed.deleted.count
        }
        if done > 0 { logger.notice("Recently Deleted carried into the encrypted zone, re-sealed", metadata: ["path": "\(configuration.root.path)", "items": "\(done)"]) }
        return done
    }

    /// `record` of the plain zone as a new record of `zone` with the same name and fields,
    /// its content (downloaded from `plainBackend`) cut and sealed with `keys` and uploaded.
    private func resealed(_ record: Record, into zone: ZoneID, keys: FolderEpochKeys, from plainBackend: any StorageBackend) async throws(SyncError) -> Record {
        var asset: AssetReference?
        if let reference = record.asset {
            let content = try await plainBackend.loadAsset(reference)
            asset = try await storeSealed(content, keys: keys, zone: zone)
        }
        return Record(id: RecordID(zone: zone, recordName: record.id.recordName), type: record.type, path: record.path, size: record.size,
                      modified: record.modified, mode: record.mode, contentDigest: record.contentDigest, asset: asset,
                      symlinkTarget: record.symlinkTarget, lastModifiedBy: record.lastModifiedBy, lastEditorName: record.lastEditorName)
    }

    /// `content` sealed with `keys` (`FolderEpochKeys.sealAsset`), its data chunks and
    /// manifest nodes uploaded where missing; returns the reference a record carries.
    func storeSealed(_ content: Data, keys: FolderEpochKeys, zone: ZoneID) async throws(SyncError) -> AssetReference {
        let sealed = keys.sealAsset(content, zone: zone)
        let missing = try await backend.missingChunks(sealed.chunks.map(\.id) + sealed.nodes.map(\.ref.digest))
        let uploads = sealed.chunks.filter { missing.contains($0.id) }.map(ChunkUpload.init(sealed:))
            + sealed.nodes.filter { missing.contains($0.ref.digest) }.map { ChunkUpload(digest: $0.ref.digest, bytes: $0.bytes, isVerified: true) }
        if !uploads.isEmpty { try await backend.uploadChunks(uploads) }
        return sealed.reference
    }
}
