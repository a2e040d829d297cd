import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import Foundation
import Testing

/// A framed body read as it arrives, in pieces of any size, gives the frames `decode` gives
/// for the whole body, and the same errors.
@Suite struct ChunkFrameReaderTests {
    static let chunks = [ChunkFramingTests.chunk("one"), ChunkFramingTests.chunk(""),
                         ChunkFramingTests.chunk(String(repeating: "x", count: 5_000)), ChunkFramingTests.chunk("last")]

    /// Feeds `body` to a reader `pieceSize` bytes at a time, taking frames as they complete.
    static func read(_ body: Data, pieceSize: Int, maximumChunkSize: Int = StorageLimits.maximumChunkSize,
                     maximumChunks: Int = .max) throws(SyncError) -> [ChunkUpload] {
        var reader = ChunkFrameReader(maximumChunkSize: maximumChunkSize, maximumChunks: maximumChunks)
        var frames: [ChunkUpload] = []
        var offset = body.startIndex
        while offset < body.endIndex {
            let end = min(offset + pieceSize, body.endIndex)
            reader.append(body[offset ..< end])
            while let frame = try reader.next() { frames.append(frame) }
            offset = end
        }
        try reader.finish()
        return frames
    }

    @Test(arguments: [1, 2, 35, 36, 37, 100, 4_096, 1 << 20])
    func piecesOfAnySizeGiveTheSameFrames(pieceSize: Int) throws {
        let body = ChunkFraming.encodedData(Self.chunks)
        #expect(try Self.read(body, pieceSize: pieceSize) == Self.chunks)
    }

    @Test func aBodyEndingInsideAFrameIsInvalidArgumentsWhateverThePieces() {
        let body = ChunkFraming.encodedData(Self.chunks)
        for cut in [1, 20, 36, 38, 36 + 3 + 10, body.count - 1] {
            for pieceSize in [1, 7, 1 << 20] {
                let error = #expect(throws: SyncError.self) { try Self.read(body.prefix(cut), pieceSize: pieceSize) }
                #expect(error?.code == .invalidArguments, "cut at \(cut), pieces of \(pieceSize)")
            }
        }
    }

    @Test func anOversizedChunkIsRefusedFromItsHeaderAlone() {
        let body = ChunkFraming.encodedData([ChunkFramingTests.chunk(String(repeating: "y", count: 2_000))])
        var reader = ChunkFrameReader(maximumChunkSize: 1_024)
        reader.append(body.prefix(36))
        let error = #expect(throws: SyncError.self) { _ = try reader.next() }
        #expect(error?.code == .limitExceeded)
    }

    @Test func framesPastTheCountLimitAreRefused() {
        let body = ChunkFraming.encodedData(Self.chunks)
        let error = #expect(throws: SyncError.self) { try Self.read(body, pieceSize: 10, maximumChunks: 3) }
        #expect(error?.code == .limitExceeded)
        #expect(throws: Never.self) { try Self.read(body, pieceSize: 10, maximumChunks: 4) }
    }
}
