import DocSyncCore
import DocSyncHTTP
import DocSyncPlatform
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// Digest lists and modify answers: written byte for byte as `JSONEncoder` writes them, and
/// read back by the fast reader (an answer with failures by `JSONDecoder`).
@Suite struct WireBodiesJSONTests {
    static let digests = (0..<300).map { SHA256Digest(hashing: Data("chunk \($0)".utf8)) }

    static func fast<T: WireJSONCodable>(_ type: T.Type, _ data: Data) -> T? { T.fromWireJSON(data) }

    @Test(arguments: [0, 1, 300])
    func digestListsAreWrittenAsJSONEncoderWritesThemAndReadBack(_ count: Int) throws {
        let request = WireBody.Digests(digests: Array(Self.digests.prefix(count)))
        let answer = WireBody.Missing(missing: Array(Self.digests.suffix(count)))
        #expect(try WireCoding.encode(request) == WireCoding.encoder.encode(request))
        #expect(try WireCoding.encode(answer) == WireCoding.encoder.encode(answer))
        #expect(Self.fast(WireBody.Digests.self, try WireCoding.encode(request)) == request)
        #expect(Self.fast(WireBody.Missing.self, try WireCoding.encode(answer)) == answer)
    }

    @Test func anUppercaseOrShortDigestIsReadAsJSONDecoderReadsIt() throws {
        let upper = Data(#"{"digests":["\#(Self.digests[0].hex.uppercased())"]}"#.utf8)
        #expect(Self.fast(WireBody.Digests.self, upper) == WireBody.Digests(digests: [Self.digests[0]]))
        let short = Data(#"{"digests":["\#(Self.digests[0].hex.dropLast())"]}"#.utf8)
        #expect(Self.fast(WireBody.Digests.self, short) == nil)
        #expect((try? WireCoding.decode(WireBody.Digests.self, from: short)) == nil)
    }

    static func result(failures: Bool, token: Bool, quotedName: Bool = true) -> ModifyResult {
        let zone = ZoneID("Docs")
        var result = ModifyResult()
        let names = ["b", "a", "Z", "a1", RecordID.newName()] + (quotedName ? ["quote\"d"] : [])
        for (index, name) in names.enumerated() {
            let record = Record(id: RecordID(zone: zone, recordName: name), type: .folder, changeTag: ChangeTag("t\(index)"), path: RelativePath("f\(index)"),
                                modified: Timestamp(seconds: 1_700_000_000, nanoseconds: 0), mode: 0o755, lastModifiedBy: "laptop")
            result.saved[record.id] = record
        }
        result.deleted = [RecordID(zone: zone, recordName: "gone"), RecordID(zone: zone, recordName: "also-gone")]
        if failures {
            result.failed[RecordID(zone: zone, recordName: "late")] = .serverRecordChanged(TestRecords.folder(zone, "late"))
        }
        if token { result.token = ChangeToken(opaqueValue: Data("after".utf8)) }
        return result
    }

    @Test(arguments: [(false, false), (false, true), (true, false), (true, true)])
    func modifyAnswersAreWrittenAsJSONEncoderWritesThem(_ failures: Bool, _ token: Bool) throws {
        let answer = WireBody.ModifyAnswer(Self.result(failures: failures, token: token))
        let data = try WireCoding.encode(answer)
        #expect(String(decoding: data, as: UTF8.self) == String(decoding: try WireCoding.encoder.encode(answer), as: UTF8.self))
        #expect(try WireCoding.decode(WireBody.ModifyAnswer.self, from: data) == answer)
    }

    @Test(arguments: [false, true])
    func answersWithoutFailuresAreReadByTheFastReader(_ token: Bool) throws {
        let plain = WireBody.ModifyAnswer(Self.result(failures: false, token: token, quotedName: false))
        #expect(Self.fast(WireBody.ModifyAnswer.self, try WireCoding.encode(plain)) == plain)
        // A failure, or a record name written with an escape, is left to JSONDecoder.
        let failed = WireBody.ModifyAnswer(Self.result(failures: true, token: token, quotedName: false))
        #expect(Self.fast(WireBody.ModifyAnswer.self, try WireCoding.encode(failed)) == nil)
        let quoted = WireBody.ModifyAnswer(Self.result(failures: false, token: token, quotedName: true))
        #expect(Self.fast(WireBody.ModifyAnswer.self, try WireCoding.encode(quoted)) == nil)
    }

    @Test func recentlyDeletedBodiesAreWrittenAsJSONEncoderWritesThemAndReadBack() throws {
        let zone = ZoneID("Docs")
        let records = (0 ..< 3).map { TestRecords.folder(zone, "f\($0)") }
        let listing = WireBody.DeletedRecords(deleted: records.enumerated().map {
            DeletedRecord(record: $1, deletedAt: Timestamp(nanosecondsSince1970: 1_700_000_000_000_000_000 + Int64($0)), deletedBy: $0 == 0 ? "" : "laptop \"\($0)\"")
        })
        let recoveries = WireBody.Recoveries(recoveries: [
            WireBody.Recovery(DeletedRecordRecovery(id: records[0].id, device: "desk")),
            WireBody.Recovery(DeletedRecordRecovery(id: records[1].id, path: RelativePath("elsewhere/f1 (2)"), device: "desk")),
        ])
        var result = ModifyResult()
        for record in records { var saved = record; saved.changeTag = ChangeTag("t1"); result.saved[record.id] = saved }
        let answer = WireBody.RecoverAnswer(result)
        for value in [listing as any WireJSONCodable, recoveries, answer] {
            #expect(try WireCoding.encode(value) == WireCoding.encoder.encode(value), "\(type(of: value))")
        }
        #expect(Self.fast(WireBody.DeletedRecords.self, try WireCoding.encode(listing)) == listing)
        #expect(Self.fast(WireBody.Recoveries.self, try WireCoding.encode(recoveries)) == recoveries)
        #expect(Self.fast(WireBody.RecoverAnswer.self, try WireCoding.encode(answer)) == answer)
        // An answer with a failure is written the same way and read by JSONDecoder.
        result.failed[RecordID(zone: zone, recordName: "x")] = SyncError(.unknownItem, "not in Recently Deleted")
        let failed = WireBody.RecoverAnswer(result)
        #expect(try WireCoding.encode(failed) == WireCoding.encoder.encode(failed))
        #expect(Self.fast(WireBody.RecoverAnswer.self, try WireCoding.encode(failed)) == nil)
        #expect(try WireCoding.decode(WireBody.RecoverAnswer.self, from: WireCoding.encode(failed)) == failed)
    }

    @Test func anAccountQuotaTravelsWithItsError() throws {
        let error = SyncError.accountFull(AccountQuota(usedBytes: 9_800_000_000, quotaBytes: 10_000_000_000))
        #expect(error.message.hasPrefix("account storage full (9.8 GB of 10 GB used)"))
        let decoded = try WireCoding.decoder.decode(SyncError.self, from: WireCoding.encoder.encode(error))
        #expect(decoded == error && decoded.quota?.usedBytes == 9_800_000_000)
        let disk = try WireCoding.decoder.decode(SyncError.self, from: WireCoding.encoder.encode(SyncError(.quotaExceeded, "disk full")))
        #expect(disk.quota == nil)
    }
}
