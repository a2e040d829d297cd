import DocSyncCore
import DocSyncStorage
import Foundation
import NIOCore

/// Reads `ChunkFraming` frames from a body that arrives in pieces: `append` each piece as it
/// comes, take every whole frame with `next()`, and call `finish()` once the body has ended.
/// Only the frame being completed is held, never the whole body.
///
/// Errors are those of `ChunkFraming.decode`: `limitExceeded` as soon as a header announces
/// more than `maximumChunkSize` bytes or a frame past `maximumChunks` completes,
/// `invalidArguments` from `finish()` when the body ended inside a frame.
public struct ChunkFrameReader {
    private var pending = ByteBuffer()
    /// Bytes of the body consumed as whole frames (for error messages).
    private var consumed = 0
    public private(set) var framesRead = 0
    let maximumChunkSize: Int
    let maximumChunks: Int

    public init(maximumChunkSize: Int = StorageLimits.maximumChunkSize, maximumChunks: Int = Int.max) {
        self.maximumChunkSize = maximumChunkSize
        self.maximumChunks = maximumChunks
    }

    /// Adds the next piece of the body. With nothing left over from the pieces before, the
    /// piece is taken as it is, not copied.
    public mutating func append(_ piece: ByteBuffer) {
        guard pending.readableBytes > 0 else {
            pending = piece
            return
        }
        if pending.readerIndex > 1 << 20 { pending.discardReadBytes() }
        var piece = piece
        pending.writeBuffer(&piece)
    }

    /// Adds the next piece of the body.
    public mutating func append(_ piece: Data) {
        append(ByteBuffer(bytes: piece))
    }

    /// The next whole frame, or `nil` until more of the body has arrived.
    public mutating func next() throws(SyncError) -> ChunkUpload? {
        guard let (digest, length) = header() else { return nil }
        guard length <= maximumChunkSize else {
            throw SyncError(.limitExceeded, "chunk \(digest.shortHex) announces \(length) bytes, more than the limit of \(maximumChunkSize)", digest: digest)
        }
        guard pending.readableBytes >= ChunkFraming.frameHeaderSize + length else { return nil }
        guard framesRead < maximumChunks else {
            throw SyncError(.limitExceeded, "a chunk batch holds more than \(maximumChunks) chunks; split it")
        }
        pending.moveReaderIndex(forwardBy: ChunkFraming.frameHeaderSize)
        let bytes = pending.withUnsafeReadableBytes { Data($0.prefix(length)) }
        pending.moveReaderIndex(forwardBy: length)
        consumed += ChunkFraming.frameHeaderSize + length
        framesRead += 1
        return ChunkUpload(digest: digest, bytes: bytes)
    }

    /// The digest and announced length of the frame that starts at the read position;
    /// `nil` while its header has not arrived whole.
    private func header() -> (digest: SHA256Digest, length: Int)? {
        guard pending.readableBytes >= ChunkFraming.frameHeaderSize,
              let digest = pending.withUnsafeReadableBytes({ SHA256Digest(bytes: $0.prefix(32)) }),
              let length = pending.getInteger(at: pending.readerIndex + 32, endianness: .big, as: UInt32.self)
        else { return nil }
        return (digest, Int(length))
    }

    /// Says whether the body ended between frames: throws `invalidArguments` when it ended
    /// inside a header or a chunk. Call after `next()` has returned `nil` for the last piece.
    public func finish() throws(SyncError) {
        guard pending.readableBytes > 0 else { return }
        guard let (digest, length) = header() else {
            throw SyncError(.invalidArguments,
                            "a chunk batch ends inside a frame header at byte \(consumed); send whole frames of [32-byte digest][UInt32 big-endian length][bytes]")
        }
        throw SyncError(.invalidArguments,
                        "chunk \(digest.shortHex) announces \(length) bytes but the batch ends after \(pending.readableBytes - ChunkFraming.frameHeaderSize)",
                        digest: digest)
    }
}
