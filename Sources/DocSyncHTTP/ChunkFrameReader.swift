import DocSyncCore
import DocSyncStorage
import Foundation
import NIOCore

/// Reads `ChunkFraming` frames, plain and sealed, from a body that arrives in pieces:
/// `append` each piece as it comes, take every whole frame with `next()` (a sealed chunk's
/// with its body digest), and call `finish()` once the body has ended. Only the frame being
/// completed is held, never the whole body.
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
            // Complete the split frame's header (its length word says how long it is), then
            // its bytes, from the piece.
            gather(upTo: ChunkFraming.frameHeaderSize)
            if let size = Self.headerSize(of: split) { gather(upTo: size) }
            guard let header = try header(of: split) else { return nil }
            gather(upTo: header.size + header.length)
            guard split.readableBytes == header.size + header.length else { return nil }
            try count(header)
            let frame = Self.take(header, from: &split)
            split.clear()
            return frame
        }
        guard let header = try header(of: piece),
              piece.readableBytes >= header.size + header.length else {
            // The piece ends inside a frame: keep what there is of it for the next piece.
            if piece.readableBytes > 0 { split.writeBuffer(&piece) }
            return nil
        }
        try count(header)
        return Self.take(header, from: &piece)
    }

    /// Moves bytes from the piece to the split frame until it holds `count` bytes or the piece is spent.
    private mutating func gather(upTo count: Int) {
        let wanted = min(count - split.readableBytes, piece.readableBytes)
        guard wanted > 0, var part = piece.readSlice(length: wanted) else { return }
        split.writeBuffer(&part)
    }

    /// Counts a frame about to be handed out; throws `limitExceeded` past `maximumChunks`.
    private mutating func count(_ header: Header) throws(SyncError) {
        guard framesRead < maximumChunks else {
            throw SyncError(.limitExceeded, "a chunk batch holds more than \(maximumChunks) chunks; split it")
        }
        consumed += header.size + header.length
        framesRead += 1
    }

    /// A frame's header: the chunk's digest (a sealed chunk's id), its length, a sealed
    /// chunk's body digest, and how many bytes the header takes.
    private struct Header {
        var digest: SHA256Digest
        var length: Int
        var bodyDigest: SHA256Digest?
        var size: Int
    }

    /// The whole frame at the read position of `buffer`, whose header is `header`.
    private static func take(_ header: Header, from buffer: inout ByteBuffer) -> ChunkUpload {
        buffer.moveReaderIndex(forwardBy: header.size)
        let bytes = buffer.withUnsafeReadableBytes { Data($0.prefix(header.length)) }
        buffer.moveReaderIndex(forwardBy: header.length)
        return ChunkUpload(digest: header.digest, bytes: bytes, bodyDigest: header.bodyDigest)
    }

    /// The header of the frame that starts at the read position of `buffer`; `nil` while it
    /// has not arrived whole. Throws `limitExceeded` for a length over `maximumChunkSize` as
    /// soon as the length word has arrived.
    private func header(of buffer: ByteBuffer) throws(SyncError) -> Header? {
        guard let (digest, word) = Self.lengthWord(of: buffer) else { return nil }
        let length = Int(word & ~ChunkFraming.sealedFlag)
        guard length <= maximumChunkSize else {
            throw SyncError(.limitExceeded, "chunk \(digest.shortHex) announces \(length) bytes, more than the limit of \(maximumChunkSize)", digest: digest)
        }
        return Self.header(of: buffer)
    }

    /// The digest and length word of the frame at the read position of `buffer`, once they have arrived.
    private static func lengthWord(of buffer: ByteBuffer) -> (digest: SHA256Digest, word: UInt32)? {
        guard buffer.readableBytes >= ChunkFraming.frameHeaderSize,
              let digest = buffer.withUnsafeReadableBytes({ SHA256Digest(bytes: $0.prefix(32)) }),
              let word = buffer.getInteger(at: buffer.readerIndex + 32, endianness: .big, as: UInt32.self)
        else { return nil }
        return (digest, word)
    }

    /// How many bytes the header of the frame at the read position of `buffer` takes, once
    /// its length word has arrived.
    private static func headerSize(of buffer: ByteBuffer) -> Int? {
        guard let (_, word) = lengthWord(of: buffer) else { return nil }
        return word & ChunkFraming.sealedFlag == 0 ? ChunkFraming.frameHeaderSize : ChunkFraming.sealedFrameHeaderSize
    }

    /// The whole header at the read position of `buffer`, once it has arrived.
    private static func header(of buffer: ByteBuffer) -> Header? {
        guard let (digest, word) = lengthWord(of: buffer) else { return nil }
        let length = Int(word & ~ChunkFraming.sealedFlag)
        guard word & ChunkFraming.sealedFlag != 0 else { return Header(digest: digest, length: length, bodyDigest: nil, size: ChunkFraming.frameHeaderSize) }
        guard buffer.readableBytes >= ChunkFraming.sealedFrameHeaderSize,
              let body = buffer.withUnsafeReadableBytes({ SHA256Digest(bytes: $0[ChunkFraming.frameHeaderSize ..< ChunkFraming.sealedFrameHeaderSize]) })
        else { return nil }
        return Header(digest: digest, length: length, bodyDigest: body, size: ChunkFraming.sealedFrameHeaderSize)
    }

    /// Says whether the body ended between frames: throws `invalidArguments` when it ended
    /// inside a header or a chunk. Call after `next()` has returned `nil` for the last piece.
    public func finish() throws(SyncError) {
        var rest = split
        var tail = piece
        rest.writeBuffer(&tail)
        guard rest.readableBytes > 0 else { return }
        guard let header = Self.header(of: rest) else {
            throw SyncError(.invalidArguments,
                            "a chunk batch ends inside a frame header at byte \(consumed); send whole frames of [32-byte digest][UInt32 big-endian length][bytes] "
                                + "(sealed: the length's high bit set and the body's 32-byte SHA-256 after it)")
        }
        throw SyncError(.invalidArguments,
                        "chunk \(header.digest.shortHex) announces \(header.length) bytes but the batch ends after \(rest.readableBytes - header.size)",
                        digest: header.digest)
    }
}
