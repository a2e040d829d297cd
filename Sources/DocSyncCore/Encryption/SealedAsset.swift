import Crypto
import Foundation

/// A file's content as an encrypted folder stores it (SPEC §13): cut by the epoch's gear
/// table, each chunk named by its MAC and sealed; large files get the manifest tree of plain
/// folders over those ids (`ManifestTree`), whose nodes — lists of ids and lengths, which the
/// server may see and its collector must follow — are stored in the clear under their
/// SHA-256. `reference` is what the sealed record holds (ids, content lengths, the file's
/// SHA-256); `wireEntries` what the visible record lists (the same ids, sealed lengths for
/// data chunks).
public struct SealedAsset: Sendable {
    /// The asset reference sealed into the record.
    public let reference: AssetReference
    /// The visible record's chunk list: `reference.entries` with each data chunk's sealed length.
    public let wireEntries: [ChunkRef]
    /// Each distinct data chunk, sealed: what to upload.
    public let chunks: [SealedChunk]
    /// The manifest nodes of a large file (plain, stored under their SHA-256).
    public let nodes: [ManifestTree.Node]

    /// Bytes the content takes on the server: sealed chunk bodies and nodes.
    public var storedBytes: Int64 {
        chunks.reduce(Int64(0)) { $0 + Int64($1.body.count) } + nodes.reduce(Int64(0)) { $0 + Int64($1.bytes.count) }
    }
}

extension FolderEpochKeys {
    /// `content` cut, named and sealed for the wire zone `zone`.
    public func sealAsset(_ content: Data, zone: ZoneID, parameters: ChunkerParameters = .documents) -> SealedAsset {
        content.withUnsafeBytes { raw in
            var chunker = ContentDefinedChunker(parameters, gear: gearTable)
            var refs: [ChunkRef] = [], sealed: [SealedChunk] = [], seen = Set<SHA256Digest>()
            var start = 0
            while start < raw.count {
                let length = chunker.nextChunkLength(of: UnsafeRawBufferPointer(rebasing: raw[start...]))
                let piece = UnsafeRawBufferPointer(rebasing: raw[start..<start + length])
                let id = chunkID(of: piece)
                refs.append(ChunkRef(digest: id, length: length))
                if seen.insert(id).inserted { sealed.append(sealChunk(piece, id: id, zone: zone)) }
                start += length
            }
            let (reference, nodes) = ManifestTree.build(AssetManifest(chunks: refs, contentDigest: SHA256Digest(hashing: raw)))
            let wire = reference.depth == 0
                ? reference.entries.map { ChunkRef(digest: $0.digest, length: $0.length + SealedChunk.overhead) }
                : reference.entries
            return SealedAsset(reference: reference, wireEntries: wire, chunks: sealed, nodes: nodes)
        }
    }
}

extension FolderKeyring {
    /// The content of the sealed asset `reference` (from an opened record), from the stored
    /// bodies and nodes `stored` gives by id; `authenticationFailed` for a body or node that
    /// does not open or match its id, `missingKey` for an epoch not held, `malformed` when
    /// the content is not the size and SHA-256 the record sealed.
    public func openAsset(_ reference: AssetReference, zone: ZoneID, stored: [SHA256Digest: Data]) throws(EncryptionError) -> Data {
        var level = reference.entries
        for _ in 0..<reference.depth {
            var next: [ChunkRef] = []
            for ref in level {
                guard let bytes = stored[ref.digest] else { throw EncryptionError(.malformed, "manifest node \(ref.digest.shortHex) is missing") }
                do { next += try ManifestTree.decodeNode(bytes, ref: ref) } catch {
                    throw EncryptionError(.authenticationFailed, "manifest node \(ref.digest.shortHex) is not the one named: \(error.message)")
                }
            }
            level = next
        }
        var content = Data(capacity: Int(reference.size))
        for ref in level {
            guard let body = stored[ref.digest] else { throw EncryptionError(.malformed, "chunk \(ref.digest.shortHex) is missing") }
            let piece = try openChunk(body, id: ref.digest, zone: zone)
            guard piece.count == ref.length else { throw EncryptionError(.authenticationFailed, "chunk \(ref.digest.shortHex) is not the length its list says") }
            content.append(piece)
        }
        guard Int64(content.count) == reference.size, level.count == reference.chunkCount, SHA256Digest(hashing: content) == reference.contentDigest else {
            throw EncryptionError(.malformed, "the content opened is not the size and digest the record sealed")
        }
        return content
    }
}
