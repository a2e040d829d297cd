import DocSyncCore
import DocSyncStorage
import Foundation
import NIOCore

/// Reads `ChunkFraming` frames from a body that arrives in pieces: `append` each piece as it
/// comes, take every whole frame with `next()`, and call `finish()` once the body has ended.
/// Only the frame being completed is held, never the whole body.
///
/// A frame lying inside one piece is read from that piece in place; only a frame split
/// between pieces is gathered, in a buffer that is reused, so reading a body allocates no
/// more than one frame's room besides the chunks handed out.
///
/// Errors are those of `ChunkFraming.decode`: `limitExceeded` as soon as a header announces
/// more than `maximumChunkSize` bytes or a frame past `maximumChunks` completes,
/// `invalidArguments` from `finish()` when the body ended inside a frame.
public struct ChunkFrameReader {
    /// The start of a frame that began in an earlier piece (empty when none did).
    private var split = ByteBuffer()
    /// The piece being read.
    private var piece = ByteBuffer()
    /// Bytes of the body consumed as whole frames (for error messages).
    private var consumed = 0
    public private(set) var framesRead = 0
    let maximumChunkSize: Int
    let maximumChunks: Int

    public init(maximumChunkSize: Int = StorageLimits.maximumChunkSize, maximumChunks: Int = Int.max) {
        self.maximumChunkSize = maximumChunkSize
        self.maximumChunks = maximumChunks
    }

    /// Adds the next piece of the body. It is not copied, except for a frame it completes.
    public mutating func append(_ piece: ByteBuffer) {
        if self.piece.readableBytes > 0 { split.writeBuffer(&self.piece) }
        self.piece = piece
    }

    /// Adds the next piece of the body.
    public mutating func append(_ piece: Data) {
        append(ByteBuffer(bytes: piece))
    }

    /// The next whole frame, or `nil` until more of the body has arrived.
    public mutating func next() throws(SyncError) -> ChunkUpload? {
        if split.readableBytes > 0 {
            // Complete the split frame's header, then its bytes, from the piece.
            gather(upTo: ChunkFraming.frameHeaderSize)
            guard let (digest, length) = try header(of: split) else { return nil }
            gather(upTo: ChunkFraming.frameHeaderSize + length)
            guard split.readableBytes == ChunkFraming.frameHeaderSize + length else { return nil }
            try count(length)
            let frame = Self.take(digest, length, from: &split)
            split.clear()
            return frame
        }
        guard let (digest, length) = try header(of: piece),
              piece.readableBytes >= ChunkFraming.frameHeaderSize + length else {
            // The piece ends inside a frame: keep what there is of it for the next piece.
            if piece.readableBytes > 0 { split.writeBuffer(&piece) }
            return nil
        }
        try count(length)
        return Self.take(digest, length, from: &piece)
    }

    /// Moves bytes from the piece to the split frame until it holds `count` bytes or the piece is spent.
    private mutating func gather(upTo count: Int) {
        let wanted = min(count - split.readableBytes, piece.readableBytes)
        guard wanted > 0, var part = piece.readSlice(length: wanted) else { return }
        split.writeBuffer(&part)
    }

    /// Counts a frame about to be handed out; throws `limitExceeded` past `maximumChunks`.
    private mutating func count(_ length: Int) throws(SyncError) {
        guard framesRead < maximumChunks else {
            throw SyncError(.limitExceeded, "a chunk batch holds more than \(maximumChunks) chunks; split it")
        }
        consumed += ChunkFraming.frameHeaderSize + length
        framesRead += 1
    }

    /// The whole frame at the read position of `buffer`, whose header says `digest` and `length`.
    private static func take(_ digest: SHA256Digest, _ length: Int, from buffer: inout ByteBuffer) -> ChunkUpload {
        buffer.moveReaderIndex(forwardBy: ChunkFraming.frameHeaderSize)
        let bytes = buffer.withUnsafeReadableBytes { Data($0.prefix(length)) }
        buffer.moveReaderIndex(forwardBy: length)
        return ChunkUpload(digest: digest, bytes: bytes)
    }

    /// The digest and announced length of the frame that starts at the read position of
    /// `buffer`; `nil` while its header has not arrived whole. Throws `limitExceeded` for a
    /// length over `maximumChunkSize`.
    private func header(of buffer: ByteBuffer) throws(SyncError) -> (digest: SHA256Digest, length: Int)? {
        guard let (digest, length) = Self.header(of: buffer) else { return nil }
        guard length <= maximumChunkSize else {
            throw SyncError(.limitExceeded, "chunk \(digest.shortHex) announces \(length) bytes, more than the limit of \(maximumChunkSize)", digest: digest)
        }
        return (digest, length)
    }

    private static func header(of buffer: ByteBuffer) -> (digest: SHA256Digest, length: Int)? {
        guard buffer.readableBytes >= ChunkFraming.frameHeaderSize,
              let digest = buffer.withUnsafeReadableBytes({ SHA256Digest(bytes: $0.prefix(32)) }),
              let length = buffer.getInteger(at: buffer.readerIndex + 32, endianness: .big, as: UInt32.self)
        else { return nil }
        return (digest, Int(length))
    }

    /// Says whether the body ended between frames: throws `invalidArguments` when it ended
    /// inside a header or a chunk. Call after `next()` has returned `nil` for the last piece.
    public func finish() throws(SyncError) {
        var rest = split
        var tail = piece
        rest.writeBuffer(&tail)
        guard rest.readableBytes > 0 else { return }
        guard let (digest, length) = Self.header(of: rest) else {
            throw SyncError(.invalidArguments,
                            "a chunk batch ends inside a frame header at byte \(consumed); send whole frames of [32-byte digest][UInt32 big-endian length][bytes]")
        }
        throw SyncError(.invalidArguments,
                        "chunk \(digest.shortHex) announces \(length) bytes but the batch ends after \(rest.readableBytes - ChunkFraming.frameHeaderSize)",
                        digest: digest)
    }
}
