import DocSyncCore
import DocSyncStorage
import Foundation
import NIOCore
import NIOFoundationCompat

/// The ranged GETs that read a set of chunks from their packs: one per run of chunks of
/// one pack whose gaps are at most `mergeGap` bytes (the gap is read and dropped), so a
/// file whose chunks were uploaded together is read with few requests.
struct PackReadPlan: Sendable, Hashable {
    var objectKey: String
    /// The bytes to GET, relative to the start of the object.
    var range: Range<Int64>
    /// The chunks inside `range`, with their offsets in the object.
    var chunks: [Chunk]

    struct Chunk: Sendable, Hashable {
        var digest: SHA256Digest
        var offset: Int64
        var length: Int
        /// A sealed chunk's body digest: what its bytes must hash to instead of `digest`.
        var bodyDigest: SHA256Digest? = nil
    }

    static func make(_ places: [SHA256Digest: ScaleOutBackend.ChunkPlace], mergeGap: Int64) -> [PackReadPlan] {
        var byObject: [String: [Chunk]] = [:]
        for (digest, place) in places {
            byObject[place.objectKey, default: []].append(Chunk(digest: digest, offset: place.offset, length: place.length, bodyDigest: place.bodyDigest))
        }
        var plans: [PackReadPlan] = []
        for (key, chunks) in byObject.sorted(by: { $0.key < $1.key }) {
            var current: PackReadPlan?
            for chunk in chunks.sorted(by: { ($0.offset, $0.digest) < ($1.offset, $1.digest) }) {
                let end = chunk.offset + Int64(chunk.length)
                if var plan = current, chunk.offset - plan.range.upperBound <= mergeGap {
                    plan.range = plan.range.lowerBound ..< max(plan.range.upperBound, end)
                    plan.chunks.append(chunk)
                    current = plan
                } else {
                    if let plan = current { plans.append(plan) }
                    current = PackReadPlan(objectKey: key, range: chunk.offset ..< end, chunks: [chunk])
                }
            }
            if let plan = current { plans.append(plan) }
        }
        return plans
    }

    /// The chunks of this read cut out of `bytes` (what the GET of `range` returned), each
    /// verified against its digest (a sealed chunk's: its body digest): `chunkCorrupt` for the
    /// first whose bytes are short or do not match.
    func verifiedChunks(in bytes: ByteBuffer) throws(SyncError) -> [SHA256Digest: Data] {
        var found: [SHA256Digest: Data] = [:]
        for chunk in chunks {
            let start = Int(chunk.offset - range.lowerBound)
            guard start + chunk.length <= bytes.readableBytes,
                  let data = bytes.getData(at: bytes.readerIndex + start, length: chunk.length),
                  SHA256Digest(hashing: data) == (chunk.bodyDigest ?? chunk.digest)
            else {
                throw SyncError.storedChunkCorrupt(chunk.digest, sealed: chunk.bodyDigest != nil, at: "\(objectKey) at \(chunk.offset)")
            }
            found[chunk.digest] = data
        }
        return found
    }
}
