import DocSyncCore
import DocSyncStorage
import Foundation

/// Chunk downloads through `SealingBackend`: a data chunk is stored sealed under its MAC id,
/// a manifest node in the clear under its SHA-256.
extension SealingBackend {
    func downloadChunk(_ digest: SHA256Digest) async throws(SyncError) -> Data {
        try await downloadChunks([digest])[digest]!
    }

    /// The content of each chunk of `digests`. A manifest node (`ManifestTree.isNode`: its
    /// magic, and its SHA-256 is the id asked for) comes back as stored (a data chunk's id is
    /// a MAC: no body the server could find hashes to it); a body with a node's magic that
    /// does not hash to its id is a node changed, cut or swapped (`authenticationFailed`: a
    /// sealed body starts with its cipher suite, never with the magic); any other body is
    /// opened as the sealed chunk of that id in this zone. One that is refused fails the call
    /// with `invalidArguments` — the file it belongs to shows the error and nothing of it is
    /// written.
    func downloadChunks(_ digests: [SHA256Digest]) async throws(SyncError) -> [SHA256Digest: Data] {
        let stored = try await base.downloadChunks(digests)
        let keyring = try keyring()
        var content: [SHA256Digest: Data] = [:]
        content.reserveCapacity(stored.count)
        for (digest, body) in stored {
            if ManifestTree.isNode(body, storedAs: digest) {
                content[digest] = body
                continue
            }
            do throws(EncryptionError) {
                if body.starts(with: Self.manifestNodeMagic) {
                    throw EncryptionError(.authenticationFailed, "the manifest node \(digest.shortHex) is not the one named: its SHA-256 is another "
                        + "(changed, cut or swapped on the server)")
                }
                content[digest] = try keyring.openChunk(body, id: digest, zone: zone)
            } catch {
                logger.warning("refused a sealed chunk from the server; nothing was written", metadata: [
                    "chunk": "\(digest.shortHex)", "kind": "\(error.kind.rawValue)", "problem": "\(error.message)"])
                throw SyncError(.invalidArguments, "a chunk of its content was refused (\(error.description)); nothing was written, "
                    + "and it is fetched again when the item changes", digest: digest)
            }
        }
        return content
    }

    /// The first bytes of every manifest node (`ManifestTree`'s format: `DSM1`, then its entries).
    static let manifestNodeMagic = Data("DSM1".utf8)
}
