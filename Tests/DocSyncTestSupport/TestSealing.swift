import Crypto
import DocSyncCore
import DocSyncStorage
import Foundation

/// An encrypted folder's keys for tests that need sealed chunks, records and assets as a
/// device makes them (SPEC §13): one epoch from a fixed secret, and a wire zone name of the
/// encrypted kind. Nonces stay random, so sealing the same content twice gives two bodies.
public enum TestSealing {
    public static let keys = try! FolderEpochKeys(secret: SymmetricKey(data: Data(repeating: 0x5e, count: 32)), epoch: 1)
    public static let keyring = FolderKeyring([keys])
    public static let zone = ZoneID("e.sealedchunkconformancecase")

    /// `content` sealed as one chunk of `zone`, under its keyed id.
    public static func chunk(_ content: Data) -> SealedChunk {
        keys.sealChunk(content, id: keys.chunkID(of: content), zone: zone)
    }

    /// The upload of `content` sealed as one chunk.
    public static func upload(_ content: Data) -> ChunkUpload {
        ChunkUpload(sealed: chunk(content))
    }

    /// `content` as a document of the encrypted folder at `path`: its wire record (version 1,
    /// a new record name) and what to upload before saving it — its sealed chunks, and a
    /// large file's manifest nodes, which are plain chunks.
    public static func document(_ path: String, content: Data) -> (record: Record, uploads: [ChunkUpload]) {
        let asset = keys.sealAsset(content, zone: zone)
        let uploads = asset.chunks.map(ChunkUpload.init(sealed:)) + asset.nodes.map { ChunkUpload(digest: $0.ref.digest, bytes: $0.bytes) }
        let plaintext = Record(id: RecordID(zone: ZoneID("Documents"), recordName: RecordID.newName()), type: .document, path: RelativePath(path),
                               size: Int64(content.count), modified: Timestamp(nanosecondsSince1970: 1_700_000_000_000_000_000), mode: 0o644,
                               contentDigest: asset.reference.contentDigest, asset: asset.reference, lastModifiedBy: "laptop")
        return (Record.sealing(plaintext, version: 1, with: keys, zone: zone, asset: asset), uploads)
    }
}
