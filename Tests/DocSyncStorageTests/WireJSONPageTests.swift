import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// Pages of changes and modify requests: written byte for byte as `JSONEncoder` writes
/// them and read back by the fast reader.
@Suite struct WireJSONPageTests {
    static let zone = ZoneID("Docs")

    static func records(_ count: Int, seed: UInt64) -> [Record] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { index in
            let id = RecordID(zone: zone, recordName: "r\(index)")
            let modified = Timestamp(nanosecondsSince1970: Int64.random(in: 0...Int64.max, using: &random))
            let tag = index % 3 == 0 ? nil : ChangeTag("t\(index)")
            switch index % 3 {
            case 0:
                return Record(id: id, type: .folder, changeTag: tag, path: RelativePath("dir \(index)/\"q\""), modified: modified, mode: 0o755, lastModifiedBy: "laptop")
            case 1:
                return Record(id: id, type: .symlink, changeTag: tag, path: RelativePath("link\(index)"), size: 4, modified: modified, mode: 0o777,
                              symlinkTarget: "../\u{1}é", lastModifiedBy: "desk")
            default:
                let chunks = (0..<Int.random(in: 1...40, using: &random)).map { ChunkRef(digest: SHA256Digest(hashing: random.bytes(8)), length: $0 + 1) }
                let size = chunks.reduce(Int64(0)) { $0 + Int64($1.length) }
                let digest = SHA256Digest(hashing: random.bytes(8))
                return Record(id: id, type: .document, changeTag: tag, path: RelativePath("files/\(index).txt"), size: size, modified: modified, mode: 0o644,
                              contentDigest: digest, asset: AssetReference(depth: 0, entries: chunks, chunkCount: chunks.count, size: size, contentDigest: digest),
                              lastModifiedBy: "laptop")
            }
        }
    }

    static let token = ChangeToken(opaqueValue: Data((0..<40).map { UInt8($0 * 7 % 256) }))

    @Test(arguments: [0, 1, 50])
    func pagesAreWrittenAsJSONEncoderWritesThemAndReadBack(_ count: Int) throws {
        let refusals = count == 1 ? [RefusedRecord(recordName: "bad", path: "../\\u{0}", reason: "path \"..\"")] : []
        let page = ChangeSet(changed: Self.records(count, seed: UInt64(count)), deleted: (0..<count).map { RecordID(zone: Self.zone, recordName: "gone\($0)") },
                             token: Self.token, moreComing: count > 10, refused: refusals)
        let fast = try WireCoding.encode(page)
        #expect(fast == (try WireCoding.encoder.encode(page)))
        let read = try #require(ChangeSet.fromWireJSON(fast))
        #expect(read == page)
        #expect(try WireCoding.decode(ChangeSet.self, from: fast) == page)
    }

    @Test(arguments: [false, true])
    func modifyRequestsAreWrittenAsJSONEncoderWritesThemAndReadBack(_ withToken: Bool) throws {
        let batch = RecordBatch(zone: Self.zone, saves: Self.records(30, seed: 5),
                                deletions: [RecordDeletion(id: RecordID(zone: Self.zone, recordName: "x")),
                                            RecordDeletion(id: RecordID(zone: Self.zone, recordName: "y"), baseTag: ChangeTag("t9")),
                                            RecordDeletion(id: RecordID(zone: Self.zone, recordName: "z"), baseTag: ChangeTag("t8"), device: "laptop \"A\"")],
                                atomic: withToken, knownToken: withToken ? Self.token : nil)
        let fast = try WireCoding.encode(batch)
        #expect(fast == (try WireCoding.encoder.encode(batch)))
        let read = try #require(RecordBatch.fromWireJSON(fast))
        #expect(read == batch)
    }

    @Test func aPageWithAnInvalidRecordIsLeftToTheLenientDecoder() throws {
        var invalid = Self.records(3, seed: 9)
        invalid[0].symlinkTarget = "/etc"  // a Folder with a target: encodes, but is no valid record
        let page = ChangeSet(changed: invalid, deleted: [], token: Self.token, moreComing: false)
        let data = try WireCoding.encode(page)
        #expect(ChangeSet.fromWireJSON(data) == nil)
        let decoded = try WireCoding.decode(ChangeSet.self, from: data)
        #expect(decoded.changed == Array(invalid[1...]))
        #expect(decoded.refused.map(\.recordName) == ["r0"])
    }
}
