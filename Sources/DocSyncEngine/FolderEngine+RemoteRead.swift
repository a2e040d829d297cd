import DocSyncCore
import Foundation

/// The chunks of a document the server holds and this device does not, with where each one
/// starts in the content: what a read of part of it needs (SPEC §14).
public struct RemoteLayout: Sendable, Hashable {
    public let recordName: String
    public let contentDigest: SHA256Digest
    public let size: Int64
    public let chunks: [ChunkRef]
    /// Where each chunk starts; `offsets.count == chunks.count`.
    public let offsets: [Int64]

    public init(recordName: String, manifest: AssetManifest) {
        self.recordName = recordName
        self.contentDigest = manifest.contentDigest
        self.size = manifest.size
        self.chunks = manifest.chunks
        var offsets: [Int64] = []
        offsets.reserveCapacity(manifest.chunks.count)
        var position: Int64 = 0
        for chunk in manifest.chunks {
            offsets.append(position)
            position += Int64(chunk.length)
        }
        self.offsets = offsets
    }

    /// The indices of the chunks holding any byte of `start ..< end` (clamped to the content).
    public func chunks(covering start: Int64, _ end: Int64) -> Range<Int> {
        let end = min(end, size)
        guard start < end, !chunks.isEmpty else { return 0..<0 }
        // The last chunk starting at or before `start`, and the first starting at or after `end`.
        var low = 0, high = offsets.count
        while low < high {
            let middle = (low + high) / 2
            if offsets[middle] <= start { low = middle + 1 } else { high = middle }
        }
        let first = max(low - 1, 0)
        var last = first
        while last < offsets.count, offsets[last] < end { last += 1 }
        return first..<last
    }
}

extension FolderEngine {
    /// The layout of the document at `path` as the server holds it, for an item shown as a
    /// placeholder (not on this device). `placeholderInode`: the inode of the placeholder
    /// file found there, which names the item when the index does not know the path yet (the
    /// placeholder was just moved and the loop has not recorded it). Reads the index and the
    /// backend only: safe beside the loop. `unknownItem` when the path is no such item;
    /// `invalidArguments` when its content is local already (read the file instead).
    public func remoteLayout(of path: RelativePath, placeholderInode: UInt64? = nil) async throws(SyncError) -> RemoteLayout {
        let row: IndexItem?
        do {
            row = try index.read { db in
                if let row = try db.item(at: path), row.isPlaceholder || placeholderInode == nil { return row }
                guard let inode = placeholderInode, inode != 0 else { return nil }
                return try IndexItem.fetchOne(db, sql: """
                    SELECT \(IndexItem.columns.joined(separator: ", ")) FROM item
                    WHERE inode = ? AND downloadingStatus = ? AND kind = ? AND pending != 2
                    """, arguments: [Int64(bitPattern: inode), Placeholder.notDownloaded, RecordType.document.rawValue])
            }
        } catch {
            throw SyncError(.internalError, "could not read the index at \(index.url.path): \(error)")
        }
        guard let row, row.kind == .document else { throw SyncError(.unknownItem, "\(path) is not a file this folder knows") }
        guard row.isPlaceholder, let record = row.acked, let asset = record.asset else {
            throw SyncError(.invalidArguments, "\(path) is on this device already")
        }
        let manifest = try await backend.loadManifest(asset)
        return RemoteLayout(recordName: row.recordName, manifest: manifest)
    }

    /// The verified bytes of `chunks`, from copies on this device where there are some and
    /// from the backend otherwise. Safe beside the loop.
    public func remoteChunks(_ chunks: [ChunkRef]) async throws(SyncError) -> [SHA256Digest: Data] {
        try await executor.chunkBytes(chunks)
    }
}
