import DocSyncCore
import DocSyncStorage
import Foundation

/// An encrypted folder's content as the engine reads and sends it (SPEC §13): cut and named
/// with the current epoch's keys, data chunks sealed before they travel, local copies of
/// chunks recognised by their keyed ids. A plain folder reads and sends as it always did.
extension FolderEngine {
    /// How content is cut and named: the plain chunker, or the current epoch's keyed one.
    /// Throws `serviceUnavailable` for an encrypted folder whose keys are not available.
    func assetChunker() throws(SyncError) -> AssetChunker {
        guard let keys = try sealingKeys() else { return AssetChunker() }
        return AssetChunker(keys: keys)
    }

    /// The current epoch's keys of an encrypted folder (what content is named and sealed
    /// with), `nil` for a plain folder; `serviceUnavailable` when they are not available.
    func sealingKeys() throws(SyncError) -> FolderEpochKeys? {
        guard let source = configuration.encryption else { return nil }
        guard let keyring = source.keyring else {
            throw SyncError(.serviceUnavailable, "this encrypted folder's keys are not available; nothing is read for sending")
        }
        return keyring.current
    }

    /// Whether `data` is the content of the chunk named `id`: its SHA-256 in a plain folder,
    /// its MAC under one of the held epochs' keys in an encrypted one (false without keys).
    func isContent(_ data: Data, ofChunk id: SHA256Digest) -> Bool {
        guard let source = configuration.encryption else { return SHA256Digest(hashing: data) == id }
        return source.keyring?.epochs.values.contains { $0.chunkID(of: data) == id } ?? false
    }
}

extension ChunkUpload {
    /// The upload of a data chunk named `id` whose content is `bytes`: sealed with `keys` for
    /// the zone `zone` in an encrypted folder, as it is (hashed when read) in a plain one.
    static func dataChunk(_ id: SHA256Digest, _ bytes: Data, sealedWith keys: FolderEpochKeys?, zone: ZoneID) -> ChunkUpload {
        guard let keys else { return ChunkUpload(digest: id, bytes: bytes, isVerified: true) }
        return ChunkUpload(sealed: keys.sealChunk(bytes, id: id, zone: zone))
    }
}
