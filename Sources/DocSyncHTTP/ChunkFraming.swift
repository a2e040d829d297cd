import DocSyncCore
import DocSyncStorage
import Foundation
import NIOCore

/// The binary body of the chunk batch routes: zero or more frames, back to back. A plain
/// chunk's frame is `[32-byte SHA-256 digest][UInt32 big-endian length][length bytes]`. A
/// sealed chunk's (SPEC §13) is `[32-byte id][UInt32 big-endian length | 0x8000_0000][32-byte
/// SHA-256 of the body][length bytes]`: the high bit of the length word (`sealedFlag`) says
/// that the body's digest follows it, since the id is a keyed MAC no one but a device can
/// check. A body may mix both kinds (an encrypted file's manifest nodes are plain chunks).
///
/// The same framing carries chunks both ways: `POST /v1/chunks/upload` uploads them (a
/// sealed chunk is stored with its body digest and checked against it), `POST
/// /v1/chunks/download` answers with them (a sealed chunk with the body digest it was stored
/// with, so that a client can check what arrived). Plain frames are those of releases before
/// sealed chunks, byte for byte; such a release refuses a sealed frame (its length word reads
/// as more than the chunk limit: `limitExceeded`). Decoding checks the structure only
/// (lengths, truncation, the per-chunk limit); whether the bytes hash to the digest (or
/// body digest) is the storage's check, and the client's.
public enum ChunkFraming {
    /// The bytes before a plain chunk's own bytes: its digest and its length.
    public static let frameHeaderSize = 32 + 4
    /// The bytes before a sealed chunk's own bytes: its id, its flagged length and its body digest.
    public static let sealedFrameHeaderSize = frameHeaderSize + 32
    /// The bit of the length word that marks a sealed chunk's frame.
    public static let sealedFlag: UInt32 = 0x8000_0000

    /// The size a plain chunk's frame of `length` bytes takes in a body.
    public static func frameSize(chunkLength: Int) -> Int { frameHeaderSize + chunkLength }

    /// The size the frame of `chunk` takes in a body: 32 bytes more for a sealed chunk.
    public static func frameSize(of chunk: ChunkUpload) -> Int {
        (chunk.bodyDigest == nil ? frameHeaderSize : sealedFrameHeaderSize) + chunk.bytes.count
    }

    /// Appends one frame to `body`: a sealed chunk's when `bodyDigest` is given.
    public static func append(digest: SHA256Digest, bytes: Data, bodyDigest: SHA256Digest? = nil, to body: inout ByteBuffer) {
        digest.withUnsafeBytes { _ = body.writeBytes($0) }
        let length = UInt32(truncatingIfNeeded: bytes.count)
        body.writeInteger(bodyDigest == nil ? length : length | sealedFlag, endianness: .big)
        bodyDigest?.withUnsafeBytes { _ = body.writeBytes($0) }
        bytes.withUnsafeBytes { _ = body.writeBytes($0) }
    }

    /// One body holding every chunk of `chunks`, in order, in a buffer from `pool` (a new one
    /// without): the chunks' bytes are copied once, straight into what is sent. Hand the body
    /// to `pool.keep` once it is sent (or as soon as it is handed to be sent).
    public static func encode(_ chunks: [ChunkUpload], pool: BodyBufferPool? = nil) -> ByteBuffer {
        let size = chunks.reduce(0) { $0 + frameSize(of: $1) }
        var body = pool?.take(capacity: size) ?? ByteBufferAllocator().buffer(capacity: size)
        for chunk in chunks { append(digest: chunk.digest, bytes: chunk.bytes, bodyDigest: chunk.bodyDigest, to: &body) }
        return body
    }

    /// The chunks of `body`, in order (a sealed one with its body digest).
    ///
    /// Throws `invalidArguments` when a frame is truncated or the body ends inside a header,
    /// and `limitExceeded` when a frame announces more than `maximumChunkSize` bytes or the
    /// body holds more than `maximumChunks` frames.
    public static func decode(
        _ body: Data,
        maximumChunkSize: Int = StorageLimits.maximumChunkSize,
        maximumChunks: Int = Int.max
    ) throws(SyncError) -> [ChunkUpload] {
        try decode(ByteBuffer(bytes: body), maximumChunkSize: maximumChunkSize, maximumChunks: maximumChunks)
    }

    /// The chunks of `body`, in order, read from the buffer as it is: each chunk's bytes are
    /// copied once, into its own `Data`. Throws as `decode(_:)` with `Data` does.
    public static func decode(
        _ body: ByteBuffer,
        maximumChunkSize: Int = StorageLimits.maximumChunkSize,
        maximumChunks: Int = Int.max
    ) throws(SyncError) -> [ChunkUpload] {
        var reader = ChunkFrameReader(maximumChunkSize: maximumChunkSize, maximumChunks: maximumChunks)
        reader.append(body)
        var chunks: [ChunkUpload] = []
        while let chunk = try reader.next() { chunks.append(chunk) }
        try reader.finish()
        return chunks
    }

    /// Cuts `chunks` into groups whose framed bodies stay within `maximumBodySize` bytes
    /// (a chunk larger than that travels alone) and hold at most `maximumChunks` chunks,
    /// keeping their order.
    public static func batches(
        _ chunks: [ChunkUpload], maximumBodySize: Int, maximumChunks: Int
    ) -> [[ChunkUpload]] {
        var batches: [[ChunkUpload]] = []
        var current: [ChunkUpload] = []
        var currentSize = 0
        for chunk in chunks {
            let size = frameSize(of: chunk)
            if !current.isEmpty, currentSize + size > maximumBodySize || current.count >= maximumChunks {
                batches.append(current)
                current = []
                currentSize = 0
            }
            current.append(chunk)
            currentSize += size
        }
        if !current.isEmpty { batches.append(current) }
        return batches
    }
}
