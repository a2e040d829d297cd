import DocSyncCore
import DocSyncPlatform
import DocSyncStorage
import Foundation

/// Records for tests, valid by construction.
public enum TestRecords {
    public static let device = "test-device"

    public static func folder(_ zone: ZoneID, _ path: String, name: String = RecordID.newName()) -> Record {
        Record(id: RecordID(zone: zone, recordName: name), type: .folder, path: RelativePath(path),
               modified: Timestamp(nanosecondsSince1970: 1_700_000_000_000_000_000), mode: 0o755, lastModifiedBy: device)
    }

    public static func symlink(_ zone: ZoneID, _ path: String, target: String, name: String = RecordID.newName()) -> Record {
        Record(id: RecordID(zone: zone, recordName: name), type: .symlink, path: RelativePath(path), size: Int64(target.utf8.count),
               modified: Timestamp(nanosecondsSince1970: 1_700_000_000_123_456_789), mode: 0o777, symlinkTarget: target,
               lastModifiedBy: device)
    }

    /// A document whose content is stored on `backend` first (upload-first).
    public static func document(
        _ zone: ZoneID, _ path: String, content: Data, on backend: any StorageBackend, name: String = RecordID.newName()
    ) async throws -> Record {
        let stored = try await backend.storeAsset(content)
        return Record(id: RecordID(zone: zone, recordName: name), type: .document, path: RelativePath(path),
                      size: Int64(content.count), modified: Timestamp(nanosecondsSince1970: 1_700_000_000_987_654_321),
                      mode: 0o644, contentDigest: stored.reference.contentDigest, asset: stored.reference, lastModifiedBy: device)
    }

    /// A document whose asset is `chunks` as they are, one entry each (not chunked again, and
    /// not uploaded: store them first), so that a test decides which chunks lie together.
    public static func document(_ zone: ZoneID, _ path: String, chunks: [Data], name: String = RecordID.newName()) -> Record {
        let content = chunks.reduce(Data(), +)
        let refs = chunks.map { ChunkRef(digest: SHA256Digest(hashing: $0), length: $0.count) }
        let digest = SHA256Digest(hashing: content)
        return Record(id: RecordID(zone: zone, recordName: name), type: .document, path: RelativePath(path), size: Int64(content.count),
                      modified: Timestamp(nanosecondsSince1970: 1_700_000_000_987_654_321), mode: 0o644, contentDigest: digest,
                      asset: AssetReference(depth: 0, entries: refs, chunkCount: refs.count, size: Int64(content.count), contentDigest: digest),
                      lastModifiedBy: device)
    }

    /// `record` without what a store adds on saving it: the change tag, and the account a
    /// server that knows accounts names as its editor.
    public static func stripped(_ record: Record) -> Record {
        var copy = record
        copy.changeTag = nil
        copy.lastEditorName = nil
        return copy
    }
}

extension StorageBackend {
    /// Saves one record (non-atomically) and returns the saved version, or throws its error.
    @discardableResult
    public func save(_ record: Record) async throws -> Record {
        let result = try await modifyRecords(RecordBatch(zone: record.id.zone, saves: [record]))
        if let error = result.failed[record.id] { throw error }
        return result.saved[record.id]!
    }

    /// Fetches every change after `token`, page by page, with the final token.
    public func fetchAllChanges(in zone: ZoneID, since token: ChangeToken?, pageSize: Int = 100) async throws
        -> (changed: [RecordID: Record], deleted: Set<RecordID>, token: ChangeToken, pages: Int)
    {
        var changed: [RecordID: Record] = [:]
        var deleted = Set<RecordID>()
        var token = token
        var pages = 0
        while true {
            let page = try await fetchChanges(in: zone, since: token, limit: pageSize)
            pages += 1
            for record in page.changed { changed[record.id] = record; deleted.remove(record.id) }
            for id in page.deleted { deleted.insert(id); changed.removeValue(forKey: id) }
            token = page.token
            if !page.moreComing { return (changed, deleted, page.token, pages) }
        }
    }
}
