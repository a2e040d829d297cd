import DocSyncCore
import DocSyncPlatform
import Foundation
import Testing

@Suite struct RecordTests {
    let zone = ZoneID("Documents")

    func document(size: Int64 = 5) -> Record {
        let digest = SHA256Digest(hashing: Data("hello".utf8))
        let asset = AssetReference(depth: 0, entries: [ChunkRef(digest: digest, length: 5)], chunkCount: 1, size: size, contentDigest: digest)
        return Record(id: RecordID(zone: zone, recordName: "doc"), type: .document, path: RelativePath("a/hello.txt"), size: size,
                      modified: Timestamp(seconds: 1_700_000_000, nanoseconds: 123_456_789), mode: 0o644,
                      contentDigest: digest, asset: asset, lastModifiedBy: "laptop")
    }

    @Test func validRecordsRoundTripThroughJSON() throws {
        let records = [
            document(),
            Record(id: RecordID(zone: zone, recordName: "dir"), type: .folder, path: RelativePath("a"), modified: .now, mode: 0o755, lastModifiedBy: "x"),
            Record(id: RecordID(zone: zone, recordName: "ln"), type: .symlink, changeTag: ChangeTag("t1"), path: RelativePath("a/ln"), size: 9,
                   modified: Timestamp(nanosecondsSince1970: -5), mode: 0o777, symlinkTarget: "hello.txt", lastModifiedBy: "x"),
        ]
        for record in records {
            try record.validate()
            let json = try WireCoding.encoder.encode(record)
            #expect(try WireCoding.decoder.decode(Record.self, from: json) == record)
            #expect(try WireCoding.encoder.encode(record) == json, "encoding is stable")
        }
    }

    @Test func inconsistentRecordsAreInvalid() {
        var noAsset = document()
        noAsset.asset = nil
        var sizeMismatch = document()
        sizeMismatch.size = 6
        var folderWithContent = document()
        folderWithContent.type = .folder
        var emptyLink = document()
        emptyLink.type = .symlink
        emptyLink.contentDigest = nil
        emptyLink.asset = nil
        var badMode = document()
        badMode.mode = 0o170000
        for record in [noAsset, sizeMismatch, folderWithContent, emptyLink, badMode] {
            let error = #expect(throws: SyncError.self) { try record.validate() }
            #expect(error?.code == .invalidArguments)
        }
    }

    @Test func recordsOverOneMegabyteExceedTheLimit() {
        var record = Record(id: RecordID(zone: zone, recordName: "ln"), type: .symlink, path: RelativePath("ln"), modified: .now,
                            mode: 0o777, symlinkTarget: String(repeating: "x", count: 1_100_000), lastModifiedBy: "x")
        record.size = 1_100_000
        let error = #expect(throws: SyncError.self) { try record.validate() }
        #expect(error?.code == .limitExceeded)
    }

    @Test func timestampsKeepNanosecondsAndHandleNegatives() throws {
        let t = Timestamp(seconds: -2, nanoseconds: 500)
        #expect(t.secondsAndNanoseconds.seconds == -2 && t.secondsAndNanoseconds.nanoseconds == 500)
        let before = Timestamp(nanosecondsSince1970: -1)
        #expect(before.secondsAndNanoseconds == (-1, 999_999_999))
        let json = try JSONEncoder().encode(Timestamp(nanosecondsSince1970: 1_700_000_000_123_456_789))
        #expect(String(decoding: json, as: UTF8.self) == "1700000000123456789")
    }

    @Test func errorsCarryWhatTheirHandlingNeeds() throws {
        let server = document()
        let changed = SyncError.serverRecordChanged(server)
        #expect(changed.code == .serverRecordChanged && changed.serverRecord == server)
        let partial = SyncError(.partialFailure, "1 failed", itemErrors: [server.id: changed])
        let limited = SyncError(.requestRateLimited, "slow down", retryAfter: 2.5)
        for error in [changed, partial, limited, SyncError.chunkNotFound(server.contentDigest!)] {
            let json = try WireCoding.encoder.encode(error)
            #expect(try WireCoding.decoder.decode(SyncError.self, from: json) == error)
        }
        #expect(limited.isTransient && !changed.isTransient)
        #expect(Set(SyncError.Code.allCases.map(\.rawValue)).isSuperset(of: [
            "networkFailure", "networkUnavailable", "serviceUnavailable", "zoneBusy", "requestRateLimited", "serverRecordChanged",
            "partialFailure", "limitExceeded", "zoneNotFound", "userDeletedZone", "changeTokenExpired", "quotaExceeded",
            "notAuthenticated", "assetFileModified",
        ]), "every code of SPEC §5")
    }

    @Test func changeTokensAreOpaqueBase64() throws {
        let token = ChangeToken(opaqueValue: Data([0, 1, 2, 255]))
        let json = try JSONEncoder().encode(token)
        #expect(String(decoding: json, as: UTF8.self) == "\"AAEC\\/w==\"")
        #expect(try JSONDecoder().decode(ChangeToken.self, from: json) == token)
    }
}
