import DocSyncCore
@testable import DocSyncPlatform
import DocSyncTestSupport
import Foundation
import Testing

/// Files written past the page cache hold exactly what was appended, whatever the sizes of
/// the pieces, and so do files written through it (the fallback).
@Suite struct DirectFileWriterTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("docsync-direct") }

    /// Writes `pieces` through a new writer into a new file; returns what the file holds,
    /// and whether the writer bypassed the page cache.
    func write(_ pieces: [Data], capacity: Int, direct: Bool) throws -> (content: Data, length: Int64, wasDirect: Bool) {
        let path = directory.path + "/file-\(UUID().uuidString.prefix(8))"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        try #require(fd >= 0)
        defer { close(fd) }
        let writer = DirectFileWriter(fd: fd, capacity: capacity, direct: direct)
        for piece in pieces { #expect(writer.append(piece) == 0) }
        #expect(writer.finish() == 0)
        return (try Data(contentsOf: URL(fileURLWithPath: path)), writer.length, writer.isDirect)
    }

    /// Pieces of awkward sizes: empty, one byte, around a block, around the buffer, and random.
    func pieces(seed: UInt64, capacity: Int) -> [Data] {
        var generator = SplitMix64(seed: seed)
        var sizes = [0, 1, 4095, 4096, 4097, capacity - 1, capacity, capacity + 1, 3 * capacity + 17]
        for _ in 0..<12 { sizes.append(Int(generator.next() % UInt64(2 * capacity + 1))) }
        return sizes.map { size in
            var bytes = [UInt8](repeating: 0, count: size)
            bytes.withUnsafeMutableBytes { raw in
                for offset in stride(from: 0, to: size, by: 8) {
                    var word = generator.next()
                    withUnsafeBytes(of: &word) { raw.baseAddress!.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: min(8, size - offset)) }
                }
            }
            return Data(bytes)
        }
    }

    @Test(arguments: [4096, 65536, 1 << 20])
    func directWritesHoldExactlyTheBytesAppended(capacity: Int) throws {
        for seed in UInt64(1)...2 {
            let pieces = pieces(seed: seed, capacity: capacity)
            let expected = pieces.reduce(Data(), +)
            let (content, length, wasDirect) = try write(pieces, capacity: capacity, direct: true)
            #expect(content == expected)
            #expect(length == Int64(expected.count))
            // ext4 takes direct I/O: there the page cache must have been bypassed.
            if isExt4(directory.path) { #expect(wasDirect) }
        }
    }

    @Test func writesThroughThePageCacheHoldTheSameBytes() throws {
        let pieces = pieces(seed: 9, capacity: 8192)
        let (content, length, wasDirect) = try write(pieces, capacity: 8192, direct: false)
        #expect(!wasDirect)
        #expect(content == pieces.reduce(Data(), +))
        #expect(length == Int64(content.count))
    }

    @Test func aFileOfLessThanABlockAndAnEmptyFileHaveTheirOwnSize() throws {
        #expect(try write([Data([7, 8, 9])], capacity: 4096, direct: true).content == Data([7, 8, 9]))
        #expect(try write([], capacity: 4096, direct: true).content.isEmpty)
    }

    /// Buffers are reused (`BufferPool`): what an earlier writer left in one never reaches a file.
    @Test(arguments: [true, false])
    func aWriterAfterAnotherHoldsOnlyItsOwnBytes(direct: Bool) throws {
        for size in [10_000, 5, 4096, 70_000, 3] {
            let earlier = try write([Data(repeating: 0xFF, count: 65_536)], capacity: 65_536, direct: direct)
            #expect(earlier.content == Data(repeating: 0xFF, count: 65_536))
            let content = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 % 251) })
            let later = try write([content], capacity: 65_536, direct: direct)
            #expect(later.content == content)
            #expect(later.length == Int64(size))
        }
    }
}
