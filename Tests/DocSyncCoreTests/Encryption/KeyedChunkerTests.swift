import DocSyncCore
import Foundation
import Testing

/// The streaming chunker of an encrypted folder (`AssetChunker(keys:)`, what the engine reads
/// files with) cuts and names exactly as `sealAsset` does, in memory or streamed through a
/// small buffer, and never as the plain chunker does.
@Suite struct KeyedChunkerTests {
    static let keys = try! FolderEpochKeys(secret: FolderEpochKeys.newSecret(), epoch: 3)

    @Test(arguments: [0, 1, 4_096, 300_000, 3_000_000])
    func cutsAndNamesAsSealAssetDoes(size: Int) {
        var random = SplitMix64(seed: UInt64(size) + 1)
        let content = Data((0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        let sealed = Self.keys.sealAsset(content, zone: ZoneID("e.aaaaaaaaaaaaaaaaaaaaaaaaaa"))
        let chunker = AssetChunker(keys: Self.keys)
        let inMemory = content.withUnsafeBytes { chunker.chunk($0) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunker.bufferSize, alignment: 16)
        defer { buffer.deallocate() }
        var offset = 0
        let streamed = content.withUnsafeBytes { whole in
            chunker.chunk(read: { buffer in
                let count = min(buffer.count, whole.count - offset, 100_003)
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: whole[offset..<offset + count]))
                offset += count
                return count
            }, into: buffer, onChunk: { _, _ in })
        }
        #expect(inMemory == streamed)
        #expect(inMemory.contentDigest == SHA256Digest(hashing: content))
        #expect(ManifestTree.build(inMemory).reference == sealed.reference)
        #expect(inMemory.chunks.allSatisfy { $0.digest.hex.count == 64 } && ChunkNaming.keyed(Self.keys).epoch == 3)
        if size > 0 {
            let plain = content.withUnsafeBytes { AssetChunker().chunk($0) }
            #expect(Set(plain.chunks.map(\.digest)).isDisjoint(with: inMemory.chunks.map(\.digest)), "no chunk is named by its SHA-256")
        }
    }
}
