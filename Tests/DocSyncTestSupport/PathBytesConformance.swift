import DocSyncCore
import DocSyncStorage
import Foundation
import Testing

/// SPEC §4a "Paths are bytes", for every store: records whose paths (or link targets) differ
/// only in Unicode normalization are kept, sent, deleted and recovered apart, their bytes
/// intact.
extension Conformance {
    static func pathsAreBytes(_ backend: any StorageBackend, _ zone: ZoneID) async throws {
        try await backend.createZone(zone)
        let nfc = "caf\u{E9}.txt", nfd = "cafe\u{301}.txt"
        func bytes(_ text: String?) -> [UInt8]? { text.map { Array($0.utf8) } }
        let composed = try await TestRecords.document(zone, nfc, content: Data("composed\n".utf8), on: backend)
        let decomposed = try await TestRecords.document(zone, nfd, content: Data("decomposed\n".utf8), on: backend)
        let folders = [TestRecords.folder(zone, "r\u{E9}sum\u{E9}s"), TestRecords.folder(zone, "re\u{301}sume\u{301}s")]
        let links = [TestRecords.symlink(zone, "to composed", target: nfc), TestRecords.symlink(zone, "to decomposed", target: nfd)]
        let all = [composed, decomposed] + folders + links
        let result = try await backend.modifyRecords(RecordBatch(zone: zone, saves: all))
        #expect(result.failed.isEmpty, "\(result.failed)")
        let changes = try await backend.fetchAllChanges(in: zone, since: nil)
        #expect(changes.changed.count == all.count)
        for record in all {
            let fetched = try #require(changes.changed[record.id])
            #expect(bytes(fetched.path.string) == bytes(record.path.string), "\(record.path) keeps its bytes")
            #expect(bytes(fetched.symlinkTarget) == bytes(record.symlinkTarget), "\(record.path)'s target keeps its bytes")
        }
        #expect(try await backend.loadAsset(try #require(changes.changed[decomposed.id]?.asset)) == Data("decomposed\n".utf8))

        // One deleted, the other kept; the deleted one listed and recovered with its own bytes.
        let deleted = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: composed.id, device: "d")]))
        #expect(deleted.failed.isEmpty)
        let listed = try await backend.listDeleted(in: zone, since: nil)
        #expect(listed.map(\.record.id) == [composed.id])
        #expect(bytes(listed.first?.record.path.string) == bytes(nfc))
        let live = try await backend.fetchAllChanges(in: zone, since: nil).changed
        #expect(Set(live.keys) == Set(all.map(\.id)).subtracting([composed.id]))
        let recovered = try await backend.recoverDeleted([DeletedRecordRecovery(id: composed.id, device: "d")], in: zone)
        #expect(bytes(recovered.saved[composed.id]?.path.string) == bytes(nfc), "\(recovered.failed)")
        #expect(try await backend.fetchAllChanges(in: zone, since: nil).changed.count == all.count)
    }
}
