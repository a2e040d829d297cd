import DocSyncCore
import DocSyncPlatform
import DocSyncStorage
import DocSyncTestSupport
import Foundation

/// Content chunked as the engine chunks it, not stored yet: its chunks and manifest nodes to
/// upload, and the reference a record carries.
struct PreparedAsset: Sendable {
    let content: Data
    let reference: AssetReference
    /// Data chunks and manifest nodes, each once.
    let uploads: [ChunkUpload]

    init(_ content: Data) {
        self.content = content
        var pieces: [SHA256Digest: Range<Int>] = [:]
        let manifest = content.withUnsafeBytes { AssetChunker().chunk($0) { ref, range in pieces[ref.digest] = range } }
        let (reference, nodes) = ManifestTree.build(manifest)
        self.reference = reference
        uploads = pieces.map { ChunkUpload(digest: $0.key, bytes: content.subdata(in: $0.value)) }
            + nodes.map { ChunkUpload(digest: $0.ref.digest, bytes: $0.bytes) }
    }

    init(seed: UInt64, size: Int) {
        var random = SeededRandom(seed: seed)
        self.init(Data(random.bytes(size)))
    }

    var digests: [SHA256Digest] { uploads.map(\.digest) }

    /// A Document record of this content at `path`.
    func document(_ zone: ZoneID, _ path: String, name: String = RecordID.newName()) -> Record {
        Record(id: RecordID(zone: zone, recordName: name), type: .document, path: RelativePath(path), size: Int64(content.count),
               modified: .now, mode: 0o644, contentDigest: reference.contentDigest, asset: reference, lastModifiedBy: TestRecords.device)
    }

    /// `record` carrying this content instead of its own.
    func replacing(_ record: Record) -> Record {
        var copy = record
        copy.asset = reference
        copy.contentDigest = reference.contentDigest
        copy.size = Int64(content.count)
        return copy
    }
}
