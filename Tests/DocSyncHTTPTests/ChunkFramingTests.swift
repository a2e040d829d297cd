import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import Foundation
import NIOCore
import Testing

extension ChunkFraming {
    /// `encode(_:)`'s body as `Data`, for tests that cut and feed it by hand.
    static func encodedData(_ chunks: [ChunkUpload]) -> Data { Data(encode(chunks).readableBytesView) }
}

@Suite struct ChunkFramingTests {
    static func chunk(_ text: String) -> ChunkUpload {
        let bytes = Data(text.utf8)
        return ChunkUpload(digest: SHA256Digest(hashing: bytes), bytes: bytes)
    }

    @Test func framesRoundTripInOrder() throws {
        let chunks = [Self.chunk("one"), Self.chunk(""), Self.chunk(String(repeating: "x", count: 70_000))]
        let body = ChunkFraming.encodedData(chunks)
        #expect(body.count == chunks.reduce(0) { $0 + 36 + $1.bytes.count })
        #expect(try ChunkFraming.decode(body) == chunks)
        #expect(try ChunkFraming.decode(Data()).isEmpty)
    }

    @Test func frameHeaderIsDigestThenBigEndianLength() {
        let chunk = Self.chunk("abc")
        let body = ChunkFraming.encodedData([chunk])
        #expect(Array(body.prefix(32)) == chunk.digest.bytes)
        #expect(Array(body[32 ..< 36]) == [0, 0, 0, 3])
        #expect(body.suffix(3) == Data("abc".utf8))
    }

    @Test func truncatedBodiesAreInvalidArguments() throws {
        let body = ChunkFraming.encodedData([Self.chunk("hello"), Self.chunk("world")])
        for cut in [1, 10, 36 + 5 + 20, body.count - 1] {
            #expect(throws: SyncError.self) { try ChunkFraming.decode(body.prefix(cut)) }
            do { _ = try ChunkFraming.decode(body.prefix(cut)) } catch { #expect(error.code == .invalidArguments) }
        }
    }

    @Test func announcedLengthOverTheLimitIsLimitExceeded() {
        var body = Data(SHA256Digest(hashing: Data()).bytes)
        body.append(contentsOf: [0xff, 0xff, 0xff, 0xff])
        do {
            _ = try ChunkFraming.decode(body, maximumChunkSize: 1024)
            Issue.record("decoded a frame announcing 4 GiB")
        } catch {
            #expect(error.code == .limitExceeded)
        }
    }

    @Test func tooManyFramesIsLimitExceeded() {
        let body = ChunkFraming.encodedData((0 ..< 5).map { Self.chunk("c\($0)") })
        do {
            _ = try ChunkFraming.decode(body, maximumChunks: 4)
            Issue.record("decoded 5 frames with a limit of 4")
        } catch {
            #expect(error.code == .limitExceeded)
        }
    }

    @Test func batchesStayUnderTheBodySizeAndKeepOrder() {
        let chunks = (0 ..< 50).map { Self.chunk(String(repeating: "\($0 % 10)", count: 100 + $0)) }
        let batches = ChunkFraming.batches(chunks, maximumBodySize: 1000, maximumChunks: 100)
        #expect(Array(batches.joined()) == chunks)
        for batch in batches {
            let size = batch.reduce(0) { $0 + ChunkFraming.frameSize(chunkLength: $1.bytes.count) }
            #expect(size <= 1000 || batch.count == 1)
        }
        let big = Self.chunk(String(repeating: "b", count: 5000))
        #expect(ChunkFraming.batches([chunks[0], big, chunks[1]], maximumBodySize: 1000, maximumChunks: 100).map(\.count) == [1, 1, 1])
        #expect(ChunkFraming.batches(chunks, maximumBodySize: 1 << 20, maximumChunks: 7).map(\.count).max() == 7)
    }
}
