import Crypto

/// Splits a byte stream into content-defined chunks and hashes them, in bounded memory.
///
/// The stream is read through a caller-supplied `read` function (so this type does no I/O
/// of its own): it fills the buffer it is given and returns the number of bytes written,
/// 0 at the end of the stream. Memory use is the one working buffer the caller lends
/// (`bufferSize` bytes; DocSyncPlatform's `chunk(read:onChunk:)` takes it from its pool),
/// whatever the stream's length. Each chunk is handed to `onChunk` with its bytes (valid only during the
/// call) before the next is read; the result lists every chunk in order with the SHA-256 of
/// the whole stream. Chunks are named as `naming` says: by their SHA-256, or in an encrypted
/// folder by the epoch's MAC, its gear table placing their boundaries (`init(keys:)`); the
/// whole stream's digest is its SHA-256 either way.
public struct AssetChunker: Sendable {
    public let chunker: ContentDefinedChunker
    public let bufferSize: Int
    public let naming: ChunkNaming

    public init(parameters: ChunkerParameters = .documents, gear: GearTable = .standard, bufferSize: Int = 1 << 20) {
        self.chunker = ContentDefinedChunker(parameters, gear: gear)
        self.bufferSize = Swift.max(bufferSize, 2 * parameters.maximumSize)
        self.naming = .contentHash
    }

    /// The chunker of an encrypted folder's epoch (SPEC §13): cut by the epoch's gear table,
    /// chunks named by their MAC under its key — what `FolderEpochKeys.sealAsset` cuts and names.
    public init(parameters: ChunkerParameters = .documents, keys: FolderEpochKeys, bufferSize: Int = 1 << 20) {
        self.chunker = ContentDefinedChunker(parameters, gear: keys.gearTable)
        self.bufferSize = Swift.max(bufferSize, 2 * parameters.maximumSize)
        self.naming = .keyed(keys)
    }

    /// Chunks the stream `read` gives, in `buffer` (at least `bufferSize` bytes, the
    /// caller's again when this returns; its contents are then unspecified).
    public func chunk<E: Error>(
        read: (UnsafeMutableRawBufferPointer) throws(E) -> Int,
        into workingBuffer: UnsafeMutableRawBufferPointer,
        onChunk: (ChunkRef, UnsafeRawBufferPointer) throws(E) -> Void
    ) throws(E) -> AssetManifest {
        precondition(workingBuffer.count >= bufferSize, "AssetChunker: a working buffer of \(workingBuffer.count) bytes, \(bufferSize) needed")
        var chunker = self.chunker
        let maximum = chunker.parameters.maximumSize
        let buffer = UnsafeMutableRawBufferPointer(rebasing: workingBuffer[0..<bufferSize])
        var fileHash = SHA256()
        var chunks: [ChunkRef] = []
        var start = 0, end = 0
        var atEnd = false
        while true {
            // Keep at least one maximum-size chunk in the buffer unless the stream has ended.
            if !atEnd && end - start < maximum {
                if start > 0 {
                    buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + start, byteCount: end - start)
                    end -= start
                    start = 0
                }
                while end < bufferSize {
                    let got = try read(UnsafeMutableRawBufferPointer(rebasing: buffer[end...]))
                    if got == 0 { atEnd = true; break }
                    end += got
                }
            }
            if start == end { break }
            let available = UnsafeRawBufferPointer(rebasing: buffer[start..<end])
            let length = chunker.nextChunkLength(of: available)
            let bytes = UnsafeRawBufferPointer(rebasing: available[..<(available.startIndex + length)])
            fileHash.update(bufferPointer: bytes)
            let ref = ChunkRef(digest: naming.id(of: bytes), length: length)
            try onChunk(ref, bytes)
            chunks.append(ref)
            start += length
        }
        return AssetManifest(chunks: chunks, contentDigest: SHA256Digest(fileHash.finalize()))
    }

    /// Chunks bytes already in memory. `onChunk` sees each chunk's range in `bytes`.
    public func chunk(_ bytes: UnsafeRawBufferPointer, onChunk: (ChunkRef, Range<Int>) -> Void = { _, _ in }) -> AssetManifest {
        var chunks: [ChunkRef] = []
        var chunker = self.chunker
        var start = 0
        while start < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[start...])
            let length = chunker.nextChunkLength(of: rest)
            let ref = ChunkRef(digest: naming.id(of: UnsafeRawBufferPointer(rebasing: rest[..<(rest.startIndex + length)])), length: length)
            onChunk(ref, start..<start + length)
            chunks.append(ref)
            start += length
        }
        // A content of one chunk (most small files) is hashed once: its chunk's digest is the
        // file's — when chunks are named by their SHA-256.
        let hashedOnce: Bool = if chunks.count == 1, case .contentHash = naming { true } else { false }
        let contentDigest = hashedOnce ? chunks[0].digest : SHA256Digest(hashing: bytes)
        return AssetManifest(chunks: chunks, contentDigest: contentDigest)
    }
}
