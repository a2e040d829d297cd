import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// Sealed chunks in `ChunkFraming` (SPEC §13): `[id][length | 0x80000000][body SHA-256][body]`
/// beside plain frames that stay as they were, read whole or in pieces of any size, and
/// refused when cut short or when their length word is wrong.
@Suite struct SealedChunkFramingTests {
    static let sealed = TestSealing.upload(Data("the minutes, sealed".utf8))
    /// As a reader decodes them: no promise of having been verified crosses the wire.
    static let mixed = [ChunkFramingTests.chunk("plain"), sealed, TestSealing.upload(Data()),
                        TestSealing.upload(Data(String(repeating: "s", count: 5_000).utf8)), ChunkFramingTests.chunk("last")]
        .map { upload in var received = upload; received.isVerified = false; return received }

    @Test func aSealedFrameIsTheIdAFlaggedLengthTheBodyDigestAndTheBody() throws {
        let body = ChunkFraming.encodedData([Self.sealed])
        let length = Self.sealed.bytes.count
        #expect(body.count == 32 + 4 + 32 + length)
        #expect(Array(body.prefix(32)) == Self.sealed.digest.bytes)
        #expect(Array(body[32 ..< 36]) == [0x80, 0, UInt8(length >> 8), UInt8(length & 0xff)])
        let bodyDigest = try #require(Self.sealed.bodyDigest)
        #expect(Array(body[36 ..< 68]) == bodyDigest.bytes)
        #expect(body.suffix(length) == Self.sealed.bytes)
        #expect(ChunkFraming.frameSize(of: Self.sealed) == body.count)
    }

    @Test func plainAndSealedFramesRoundTripInOneBody() throws {
        let body = ChunkFraming.encodedData(Self.mixed)
        #expect(body.count == Self.mixed.reduce(0) { $0 + ChunkFraming.frameSize(of: $1) })
        let decoded = try ChunkFraming.decode(body)
        #expect(decoded == Self.mixed, "each with its body digest, or none")
        #expect(decoded.map { $0.bodyDigest == nil } == [true, false, false, false, true])
        // A plain chunk's frame is what it was before sealed frames existed.
        let plain = ChunkFramingTests.chunk("plain")
        #expect(ChunkFraming.encodedData([plain]) == Data(plain.digest.bytes) + Data([0, 0, 0, 5]) + plain.bytes)
    }

    @Test(arguments: [1, 2, 35, 36, 37, 67, 68, 69, 100, 4_096, 1 << 20])
    func piecesOfAnySizeGiveTheSameFrames(pieceSize: Int) throws {
        let body = ChunkFraming.encodedData(Self.mixed)
        #expect(try ChunkFrameReaderTests.read(body, pieceSize: pieceSize) == Self.mixed)
    }

    @Test func aSealedFrameCutAnywhereIsInvalidArguments() {
        let body = ChunkFraming.encodedData([Self.sealed])
        for cut in [1, 35, 36, 37, 50, 67, 68, 69, body.count - 1] {
            for pieceSize in [1, 7, 1 << 20] {
                let error = #expect(throws: SyncError.self) { try ChunkFrameReaderTests.read(body.prefix(cut), pieceSize: pieceSize) }
                #expect(error?.code == .invalidArguments, "cut at \(cut), pieces of \(pieceSize)")
            }
        }
    }

    @Test func aLengthWordThatDisagreesWithTheBytesIsRefused() {
        let body = ChunkFraming.encodedData([Self.sealed])
        let length = UInt32(Self.sealed.bytes.count)
        for wrong in [length + 1, length + 40, length - 1, 0] {
            var edited = body
            withUnsafeBytes(of: (wrong | ChunkFraming.sealedFlag).bigEndian) { edited.replaceSubrange(32 ..< 36, with: $0) }
            #expect(throws: SyncError.self, "a length of \(wrong) for \(length) bytes") { try ChunkFraming.decode(edited) }
        }
        // The flag cleared: a plain frame whose bytes start with the body digest, and end
        // short by 32 bytes.
        var unflagged = body
        withUnsafeBytes(of: length.bigEndian) { unflagged.replaceSubrange(32 ..< 36, with: $0) }
        let error = #expect(throws: SyncError.self) { try ChunkFraming.decode(unflagged) }
        #expect(error?.code == .invalidArguments)
    }

    @Test func aSealedFrameAnnouncingTooMuchIsRefusedFromItsLengthWordAlone() {
        var header = Data(Self.sealed.digest.bytes)
        withUnsafeBytes(of: (UInt32(2_000) | ChunkFraming.sealedFlag).bigEndian) { header.append(contentsOf: $0) }
        var reader = ChunkFrameReader(maximumChunkSize: 1_024)
        reader.append(header)
        let error = #expect(throws: SyncError.self) { _ = try reader.next() }
        #expect(error?.code == .limitExceeded)
        #expect(error?.digest == Self.sealed.digest)
    }

    @Test func batchesCountTheBodyDigestOfSealedFrames() {
        let chunks = (0 ..< 20).map { TestSealing.upload(Data(String(repeating: "\($0 % 10)", count: 100).utf8)) }
        let size = ChunkFraming.frameSize(of: chunks[0])
        #expect(size == 68 + 100 + 33)
        let batches = ChunkFraming.batches(chunks, maximumBodySize: 3 * size, maximumChunks: 100)
        #expect(batches.map(\.count).allSatisfy { $0 <= 3 } && Array(batches.joined()) == chunks)
    }
}
