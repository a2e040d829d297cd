import DocSyncCore

extension AssetChunker {
    /// `chunk(read:into:onChunk:)` with its working buffer taken from `BufferPool.shared` and
    /// given back when it returns: what the daemon's content reader uses.
    public func chunk<E: Error>(
        read: (UnsafeMutableRawBufferPointer) throws(E) -> Int,
        onChunk: (ChunkRef, UnsafeRawBufferPointer) throws(E) -> Void
    ) throws(E) -> AssetManifest {
        let pooled = BufferPool.shared.take(bufferSize)
        defer { BufferPool.shared.giveBack(pooled) }
        return try chunk(read: read, into: UnsafeMutableRawBufferPointer(rebasing: pooled[0..<bufferSize]), onChunk: onChunk)
    }
}
