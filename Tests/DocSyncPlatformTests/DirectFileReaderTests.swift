import DocSyncCore
@testable import DocSyncPlatform
import DocSyncTestSupport
import Foundation
import Testing

/// Spans read past the page cache are exactly the file's bytes, wherever they start and end.
@Suite struct DirectFileReaderTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("docsync-direct-read") }

    /// A file of `size` pseudo-random bytes; returns its path and its content.
    func file(size: Int, seed: UInt64) throws -> (path: String, content: Data) {
        var generator = SplitMix64(seed: seed)
        let content = Data((0..<size).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        let path = directory.path + "/file-\(seed)"
        try content.write(to: URL(fileURLWithPath: path))
        return (path, content)
    }

    @Test func spansStartingAndEndingAnywhereAreTheFilesBytes() throws {
        let size = 3 * (1 << 20) + 1234  // the file ends inside a block
        let (path, content) = try file(size: size, seed: 1)
        let reader = DirectFileReader(path: path)
        guard reader.isOpen else {
            // Only a file system that refuses direct I/O may leave it closed; ext4 takes it.
            #expect(!isExt4(directory.path))
            #expect(reader.read(offset: 0, length: 65_536) == nil)
            return
        }
        let spans: [(Int, Int)] = [(0, 4096), (0, 65_536), (1, 65_536), (4095, 4097), (12_345, 1 << 20),
                                   (size - 70_000, 70_000), (size - 1, 1), (4096, size - 4096), (0, size)]
        for (offset, length) in spans {
            let bytes = reader.read(offset: Int64(offset), length: length)
            #expect(bytes == content[offset..<offset + length], "span at \(offset) of \(length) bytes")
        }
    }

    @Test func aSpanPastTheEndOfTheFileIsNotAnswered() throws {
        let (path, content) = try file(size: 100_000, seed: 2)
        let reader = DirectFileReader(path: path)
        #expect(reader.read(offset: 0, length: 100_000) == (reader.isOpen ? content : nil))
        #expect(reader.read(offset: 50_000, length: 50_001) == nil)
        #expect(reader.read(offset: 100_000, length: 1) == nil)
        #expect(reader.read(offset: 0, length: 0) == nil)
    }

    @Test func aFileThatCannotBeOpenedIsReadByNoOne() {
        let reader = DirectFileReader(path: directory.path + "/absent")
        #expect(!reader.isOpen)
        #expect(reader.read(offset: 0, length: 65_536) == nil)
    }
}
