import DocSyncCore
import DocSyncEngine
import DocSyncTestSupport
import Foundation
import Testing

/// Reading a file as an asset: the kept bytes (in a pooled buffer for large files) are
/// exactly the file's, and the manifest is the same whether the bytes are kept or streamed.
@Suite struct ContentReaderTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("docsync-reader") }

    @Test(arguments: [0, 1, 4096, 65_534, 65_535, 65_536, 65_537, (1 << 20) + 3, 3 << 20])
    func keptBytesAreTheFileAndTheManifestMatchesAStreamedRead(size: Int) throws {
        var generator = SplitMix64(seed: UInt64(size) + 7)
        let content = Data((0..<size).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        let path = directory.path + "/file-\(size)"
        try content.write(to: URL(fileURLWithPath: path))

        let kept = try ContentReader.read(path, keepingUpTo: 4 << 20, in: PosixFileSystem())
        #expect(kept.bytes == content)
        #expect(kept.manifest.size == Int64(size))
        #expect(kept.manifest.contentDigest == SHA256Digest(hashing: content))
        #expect(kept.stat.size == Int64(size))

        let streamed = try ContentReader.read(path, in: PosixFileSystem())
        #expect(streamed.manifest == kept.manifest)
        #expect(streamed.reference == kept.reference)
        // Only what the caller asked to keep is kept (an empty file's nothing is).
        #expect((streamed.bytes == nil) == (size > 0))
    }

    @Test func manyLargeReadsInARowEachHoldTheirOwnFile() throws {
        var reads: [Data] = []
        for index in 0..<6 {
            let content = Data(repeating: UInt8(index + 1), count: 200_000 + index)
            let path = directory.path + "/large-\(index)"
            try content.write(to: URL(fileURLWithPath: path))
            let bytes = try #require(try ContentReader.read(path, keepingUpTo: 1 << 20, in: PosixFileSystem()).bytes)
            #expect(bytes == content)
            if index % 2 == 0 { reads.append(bytes) }  // some held, some let go and reused
        }
        for (position, bytes) in reads.enumerated() {
            #expect(bytes == Data(repeating: UInt8(2 * position + 1), count: 200_000 + 2 * position))
        }
    }
}
