import DocSyncCore
import Foundation
import GRDB

/// Reading a local item's content into its index row.
extension FolderEngine {
    /// Reads a changed file's content into the row (digest, asset, chunk locations) and
    /// stores both in the index.
    func readContent(_ row: inout IndexItem) throws(SyncError) {
        let content = try readContentUnsaved(&row)
        let final = row
        try writeIndex { db in
            try final.update(db)
            if let content { try db.setChunkLocations(of: final.recordName, chunks: content.chunks) }
        }
    }

    /// A document's content as just read: its chunk list (for `setChunkLocations`) and, for
    /// a file no larger than the reader was asked to keep, the bytes those chunks describe.
    struct ReadContent: Sendable {
        var chunks: [ChunkRef]
        var bytes: Data?
        /// The epoch whose keys named the chunks (an encrypted folder's), `nil` for a plain one.
        var epoch: UInt32?
    }

    /// Reads a changed item's content into the row without touching the index; returns a
    /// document's content, `nil` for other kinds.
    func readContentUnsaved(_ row: inout IndexItem, keepingUpTo keepLimit: Int64 = 0) throws(SyncError) -> ReadContent? {
        switch row.kind {
        case .folder, .value, .sealed:  // a folder holds no Value (stores refuse one outside a key-value store), nor a record still sealed
            row.needsRead = false
            return nil
        case .symlink:
            let target = try ContentReader.linkTarget(absolute(row.path), in: fileSystem)
            row.symlinkTarget = target
            row.size = Int64(target.utf8.count)
            row.needsRead = false
            return nil
        case .document:
            let keys = try sealingKeys()
            let content = try ContentReader.read(absolute(row.path), keepingUpTo: keepLimit,
                                                 chunker: keys.map { AssetChunker(keys: $0) } ?? AssetChunker(), in: fileSystem)
            row.take(content.stat)
            row.digest = content.manifest.contentDigest
            row.asset = content.reference
            row.needsRead = false
            return ReadContent(chunks: content.manifest.chunks, bytes: content.bytes, epoch: keys?.epoch)
        }
    }
}
