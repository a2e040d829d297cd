import DocSyncCore
import DocSyncPlatform
import DocSyncTestSupport
import Foundation
import Testing

@Suite struct CompactCodingTests {
    static let zone = ZoneID("Documents")

    static func randomRecord(_ random: inout SeededRandom) -> Record {
        let names = ["a", "b c", "café", "日本語", "x-1", "deep"]
        let path = (0..<Int.random(in: 1...4, using: &random)).map { _ in names.randomElement(using: &random)! }.joined(separator: "/")
        let modified = Timestamp(nanosecondsSince1970: Int64.random(in: -1_000_000_000_000...2_000_000_000_000_000_000, using: &random))
        let tag = Bool.random(using: &random) ? ChangeTag("t\(Int.random(in: 0...1_000_000, using: &random))") : nil
        let id = RecordID(zone: zone, recordName: RecordID.newName())
        let device = ["laptop", "desk top", "ü"].randomElement(using: &random)!
        switch Int.random(in: 0..<3, using: &random) {
        case 0:
            return Record(id: id, type: .folder, changeTag: tag, path: RelativePath(path), modified: modified,
                          mode: UInt32.random(in: 0...0o7777, using: &random), lastModifiedBy: device)
        case 1:
            return Record(id: id, type: .symlink, changeTag: tag, path: RelativePath(path), size: 3, modified: modified,
                          mode: 0o777, symlinkTarget: "../ü/\(Int.random(in: 0...99, using: &random))", lastModifiedBy: device)
        default:
            let chunks = (0..<Int.random(in: 0...64, using: &random)).map { index in
                ChunkRef(digest: SHA256Digest(hashing: Data("\(index)-\(path)".utf8)), length: Int.random(in: 1...(1 << 20), using: &random))
            }
            let size = chunks.reduce(Int64(0)) { $0 + Int64($1.length) }
            let digest = SHA256Digest(hashing: Data(path.utf8))
            let asset = AssetReference(depth: Int.random(in: 0...3, using: &random), entries: chunks,
                                       chunkCount: Int.random(in: chunks.count...10_000_000, using: &random), size: size, contentDigest: digest)
            return Record(id: id, type: .document, changeTag: tag, path: RelativePath(path), size: size, modified: modified,
                          mode: 0o644, contentDigest: digest, asset: asset, lastModifiedBy: device)
        }
    }

    @Test func recordsRoundTrip() throws {
        var random = SeededRandom(seed: 7)
        for _ in 0..<500 {
            let record = Self.randomRecord(&random)
            #expect(try CompactCoding.decodeRecord(CompactCoding.encode(record)) == record)
            if let asset = record.asset {
                #expect(try CompactCoding.decodeAssetReference(CompactCoding.encode(asset)) == asset)
            }
        }
    }

    /// Rows kept as JSON by releases before the compact form are what the migrations rewrite:
    /// each becomes the compact form of the same record, and the reader refuses the JSON.
    @Test func rowsWrittenAsJSONAreRewrittenToTheSameRecord() throws {
        var random = SeededRandom(seed: 11)
        for _ in 0..<50 {
            let record = Self.randomRecord(&random)
            let json = try WireCoding.encoder.encode(record)
            #expect(CompactCoding.isLegacyJSON(json) && !CompactCoding.isLegacyJSON(CompactCoding.encode(record)))
            #expect(try CompactCoding.recordFromLegacyJSON(json) == CompactCoding.encode(record))
            #expect(throws: CompactCodingError.self) { try CompactCoding.decodeRecord(json) }
            if let asset = record.asset {
                #expect(try CompactCoding.assetReferenceFromLegacyJSON(WireCoding.encoder.encode(asset)) == CompactCoding.encode(asset))
            }
        }
        #expect(throws: (any Error).self) { try CompactCoding.recordFromLegacyJSON(Data("{\"damaged".utf8)) }
    }

    @Test func theCompactFormIsSmallerThanJSON() throws {
        var random = SeededRandom(seed: 3)
        for _ in 0..<100 {
            let record = Self.randomRecord(&random)
            #expect(CompactCoding.encode(record).count < (try WireCoding.encoder.encode(record)).count)
        }
    }

    @Test func everyTruncationIsAnErrorNotATrap() throws {
        var random = SeededRandom(seed: 5)
        for _ in 0..<20 {
            let encoded = CompactCoding.encode(Self.randomRecord(&random))
            for length in 0..<encoded.count {
                #expect(throws: (any Error).self) { try CompactCoding.decodeRecord(encoded.prefix(length)) }
            }
            #expect(throws: (any Error).self) { try CompactCoding.decodeRecord(encoded + Data([0])) }
        }
    }

    @Test func damagedFieldsAreRejected() throws {
        let record = Record(id: RecordID(zone: Self.zone, recordName: "dir"), type: .folder, path: RelativePath("a/b"),
                            modified: .now, mode: 0o755, lastModifiedBy: "x")
        var bytes = [UInt8](CompactCoding.encode(record))
        // The path "a/b" is stored verbatim; turn it into "../b", which is not a valid path.
        let at = bytes.firstIndex(of: UInt8(ascii: "/"))!
        bytes[at - 1] = UInt8(ascii: ".")
        bytes.replaceSubrange(at - 1..<at, with: [UInt8(ascii: "."), UInt8(ascii: ".")])
        bytes[at - 2] += 1  // the length prefix
        #expect(throws: SyncError.self) { try CompactCoding.decodeRecord(Data(bytes)) }
        var unknownFormat = [UInt8](CompactCoding.encode(record))
        unknownFormat[0] = 9
        #expect(throws: CompactCodingError.self) { try CompactCoding.decodeRecord(Data(unknownFormat)) }
    }
}
