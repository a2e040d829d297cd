import DocSyncCore
import DocSyncHTTP
import DocSyncPlatform
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// The modify answer carries change tags instead of the saved records: the client's result,
/// rebuilt from the batch it sent, equals what the server's backend returned, and an answer
/// that does not fit the batch is refused.
@Suite struct ModifyAnswerTests {
    let zone = ZoneID("Docs")

    func batchAndResult() -> (RecordBatch, ModifyResult) {
        let folder = TestRecords.folder(zone, "a")
        let link = TestRecords.symlink(zone, "a/link", target: "../b")
        let stale = TestRecords.folder(zone, "c")
        let foreign = TestRecords.folder(ZoneID("Other"), "d")
        let gone = RecordID(zone: zone, recordName: RecordID.newName())
        let batch = RecordBatch(zone: zone, saves: [folder, link, stale, foreign], deletions: [RecordDeletion(id: gone)])
        var result = ModifyResult()
        for (record, tag) in [(folder, "1k"), (link, "1l")] {
            var saved = record
            saved.changeTag = ChangeTag(tag)
            result.saved[record.id] = saved
        }
        result.deleted = [gone]
        var onServer = stale
        onServer.changeTag = ChangeTag("9")
        onServer.path = RelativePath("c-renamed")
        result.failed[stale.id] = .serverRecordChanged(onServer)
        result.failed[foreign.id] = SyncError(.invalidArguments, "\(foreign.id) is not in the batch's zone \(zone)")
        result.token = ChangeToken(opaqueValue: Data("after the batch".utf8))
        return (batch, result)
    }

    func overTheWire(_ answer: WireBody.ModifyAnswer) throws -> WireBody.ModifyAnswer {
        try WireCoding.decode(WireBody.ModifyAnswer.self, from: try WireCoding.encode(answer))
    }

    @Test func theRebuiltResultEqualsTheServersResult() throws {
        let (batch, result) = batchAndResult()
        let answer = try overTheWire(WireBody.ModifyAnswer(result))
        #expect(try answer.result(for: batch) == result)
    }

    @Test func theAnswerCarriesTagsNotRecords() throws {
        let (batch, result) = batchAndResult()
        let data = try WireCoding.encode(WireBody.ModifyAnswer(result))
        let json = String(decoding: data, as: UTF8.self)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let saved = try #require(object["saved"] as? [String: String], "saved is an object of record name to tag")
        #expect(saved == [batch.saves[0].id.recordName: "1k", batch.saves[1].id.recordName: "1l"])
        // The saved folder and link appear by name only; their paths travel in no field.
        #expect(!json.contains("a/link"))
        #expect(!json.contains("\"../b\""))
        // A failure keeps its whole error, the server's record of a conflict included.
        #expect(json.contains("c-renamed"))
    }

    @Test func anAnswerForRecordsTheBatchDidNotSaveIsRefused() throws {
        let (batch, result) = batchAndResult()
        var answer = WireBody.ModifyAnswer(result)
        answer.saved[RecordID.newName()] = ChangeTag("2")
        #expect { try answer.result(for: batch) } throws: { ($0 as? SyncError)?.code == .internalError }

        answer = WireBody.ModifyAnswer(result)
        answer.saved[batch.saves[3].id.recordName] = ChangeTag("2")  // the other zone's record
        #expect { try answer.result(for: batch) } throws: { ($0 as? SyncError)?.code == .internalError }

        answer = WireBody.ModifyAnswer(result)
        answer.deleted.append(batch.saves[0].id.recordName)
        #expect { try answer.result(for: batch) } throws: { ($0 as? SyncError)?.code == .internalError }

        answer = WireBody.ModifyAnswer(result)
        answer.saved[batch.saves[0].id.recordName] = ChangeTag("")
        #expect { try answer.result(for: batch) } throws: { ($0 as? SyncError)?.code == .internalError }
    }
}
