import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// A download answer is read frame by frame as it arrives: pieces of any size give the same
/// chunks, and an answer that is cut short, names the wrong chunk or carries wrong bytes is
/// an error, never a chunk.
@Suite struct HTTPBackendDownloadAnswerTests {
    static let chunks: [ChunkUpload] = {
        var random = SeededRandom(seed: 21)
        return [1, 36, 5_000, 32 << 10, 0, 700].map { count in
            let bytes = Data(random.bytes(count))
            return ChunkUpload(digest: SHA256Digest(hashing: bytes), bytes: bytes)
        }
    }()

    static func body(_ chunks: [ChunkUpload]) -> [UInt8] {
        Array(ChunkFraming.encode(chunks).readableBytesView)
    }

    static func download(answering body: [UInt8], pieceSize: Int, digests: [SHA256Digest] = chunks.map(\.digest)) async throws -> [SHA256Digest: Data] {
        let server = try CannedHTTPServer(body: body, pieceSize: pieceSize)
        defer { server.stop() }
        let backend = try HTTPBackend(url: server.url, token: "token", options: .init(chunkTransferParallelism: 1))
        defer { Task { await backend.shutdown() } }
        return try await backend.downloadChunks(digests)
    }

    @Test(arguments: [1, 7, 36, 37, 4_096, 1 << 20])
    func piecesOfAnySizeGiveEveryChunk(_ pieceSize: Int) async throws {
        let downloaded = try await Self.download(answering: Self.body(Self.chunks), pieceSize: pieceSize)
        #expect(downloaded.count == Self.chunks.count)
        for chunk in Self.chunks { #expect(downloaded[chunk.digest] == chunk.bytes) }
    }

    @Test(arguments: [10, 36, 40, 36 + 5_000])
    func anAnswerCutInsideAFrameIsAnError(_ cut: Int) async throws {
        let body = Self.body(Self.chunks)
        await expectSyncError(.invalidArguments) {
            try await Self.download(answering: Array(body.prefix(36 + 1 + cut)), pieceSize: 1_000)
        }
    }

    @Test func anAnswerNamingAnotherChunkIsAnError() async throws {
        let body = Self.body(Array(Self.chunks.reversed()))
        await expectSyncError(.internalError) { try await Self.download(answering: body, pieceSize: 4_096) }
    }

    @Test func aSealedChunkIsCheckedAgainstTheBodyDigestOfItsFrame() async throws {
        let chunks = Self.chunks + [TestSealing.upload(Data("sealed, last".utf8))]
        let body = Self.body(chunks)
        let downloaded = try await Self.download(answering: body, pieceSize: 37, digests: chunks.map(\.digest))
        #expect(downloaded == Dictionary(uniqueKeysWithValues: chunks.map { ($0.digest, $0.bytes) }))
        var damaged = body
        damaged[damaged.count - 1] ^= 0xff  // the last byte of the sealed chunk
        let error = await expectSyncError(.chunkCorrupt) { try await Self.download(answering: damaged, pieceSize: 4_096, digests: chunks.map(\.digest)) }
        #expect(error?.digest == chunks.last?.digest)
    }

    @Test func aChunkWithWrongBytesIsCorrupt() async throws {
        var body = Self.body(Self.chunks)
        body[body.count - 1] ^= 0xff  // the last byte of the last chunk
        let error = await expectSyncError(.chunkCorrupt) { try await Self.download(answering: body, pieceSize: 4_096) }
        #expect(error?.digest == Self.chunks.last?.digest)
    }
}
