import DocSyncCore
import DocSyncStorage
import Foundation
import NIOCore

/// The binary body of the chunk batch routes: zero or more frames, each
/// `[32-byte SHA-256 digest][UInt32 big-endian length][length bytes]`, back to back.
///
/// The same framing carries chunks both ways: `POST /v1/chunks/batch` uploads them,
/// `POST /v1/chunks/batch-download` answers with them. Decoding checks the structure
/// only (lengths, truncation, the per-chunk limit); whether the bytes hash to the digest
/// is the storage's check.
public enum ChunkFraming {
    /// The bytes before each chunk's own bytes.
    public static let frameHeaderSize = 32 + 4

    /// The size a frame of `length` bytes of chunk takes in a body.
    public static func frameSize(chunkLength: Int) -> Int { frameHeaderSize + chunkLength }

    /// Appends one frame to `body`.
    public static func append(digest: SHA256Digest, bytes: Data, to body: inout ByteBuffer) {
        digest.withUnsafeBytes { _ = body.writeBytes($0) }
        body.writeInteger(UInt32(truncatingIfNeeded: bytes.count), endianness: .big)
        bytes.withUnsafeBytes { _ = body.writeBytes($0) }
    }

    /// One body holding every chunk of `chunks`, in order, in a buffer from `pool` (a new one
    /// without): the chunks' bytes are copied once, straight into what is sent. Hand the body
    /// to `pool.keep` once it is sent (or as soon as it is handed to be sent).
    public static func encode(_ chunks: [ChunkUpload], pool: BodyBufferPool? = nil) -> ByteBuffer {
        let size = chunks.reduce(0) { $0 + frameSize(chunkLength: $1.bytes.count) }
        var body = pool?.take(capacity: size) ?? ByteBufferAllocator().buffer(capacity: size)
        for chunk in chunks { append(digest: chunk.digest, bytes: chunk.bytes, to: &body) }
        return body
    }

    /// The chunks of `body`, in order.
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
            let size = frameSize(chunkLength: chunk.bytes.count)
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
