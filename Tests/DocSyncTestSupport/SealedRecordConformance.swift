import DocSyncCore
import DocSyncStorage
import Foundation
import Testing

/// The conformance case of sealed records (SPEC §13): every store keeps an encrypted
/// folder's records as they were sent — the blob byte for byte, opened on a device into the
/// record that was sealed — checks the chunks their asset names like a document's, refuses
/// a sealed record with private fields in the clear, and keeps a deleted one in Recently
/// Deleted with its blob.
enum SealedRecordConformance {
    static let zone = ZoneID("e.conformanceconformanceconf")

    static func keepsSealedRecords(_ backend: any StorageBackend) async throws {
        let keyring = FolderKeyring([try FolderEpochKeys(secret: FolderEpochKeys.newSecret(), epoch: 1)])
        let keys = keyring.current
        try await backend.createZone(zone)
        let content = Data("the minutes, sealed\n".utf8)
        let stored = try await backend.storeAsset(content)
        let plainFolder = TestRecords.folder(ZoneID("Documents"), "Team")
        var plainDocument = try await TestRecords.document(ZoneID("Documents"), "Team/minutes.md", content: content, on: backend)
        plainDocument.lastModifiedBy = "laptop"
        let folder = Record.sealing(plainFolder, version: 1, with: keys, zone: zone)
        let document = Record.sealing(plainDocument, version: 1, with: keys, zone: zone, chunks: stored.reference.entries, chunkCount: 1)
        try folder.validate()
        try document.validate()

        let result = try await backend.modifyRecords(RecordBatch(zone: zone, saves: [folder, document]))
        #expect(result.failed.isEmpty, "\(result.failed)")
        let fetched = try await backend.fetchRecords([folder.id, document.id])
        for (sent, original) in [(folder, plainFolder), (document, plainDocument)] {
            let back = try #require(fetched[sent.id])
            #expect(back.sealed == sent.sealed && back.type == .sealed && back.asset == sent.asset, "the blob byte for byte")
            let opened = try back.opened(with: keyring)
            #expect(TestRecords.stripped(opened.record) == TestRecords.stripped(original) && opened.version == 1)
        }

        // A new version, based on the tag: the change reaches a fetch, still sealed.
        var renamed = plainDocument
        renamed.path = RelativePath("Team/minutes (final).md")
        renamed.changeTag = result.saved[document.id]?.changeTag
        let second = Record.sealing(renamed, version: 2, with: keys, zone: zone, chunks: stored.reference.entries, chunkCount: 1)
        _ = try await backend.save(second)
        let changes = try await backend.fetchAllChanges(in: zone, since: nil)
        let latest = try #require(changes.changed[document.id])
        #expect(try latest.opened(with: keyring).record.path == RelativePath("Team/minutes (final).md"))

        // Its chunks must be stored, as a document's; nothing private in the clear.
        let other = Record(id: RecordID(zone: ZoneID("Documents"), recordName: "unstored"), type: .document, path: RelativePath("x"),
                           size: 12, modified: plainDocument.modified, mode: 0o644, contentDigest: stored.reference.contentDigest,
                           asset: stored.reference, lastModifiedBy: "laptop")
        let missingDocument = Record.sealing(other, version: 1, with: keys, zone: zone,
                                             chunks: [ChunkRef(digest: SHA256Digest(hashing: Data("never stored".utf8)), length: 12)], chunkCount: 1)
        func sealedFolder(_ name: String) -> Record {
            Record.sealing(Record(id: RecordID(zone: ZoneID("Documents"), recordName: name), type: .folder, path: RelativePath(name),
                                  modified: plainFolder.modified, mode: 0o755, lastModifiedBy: "laptop"), version: 1, with: keys, zone: zone)
        }
        var clear = sealedFolder("clear")
        clear.contentDigest = SHA256Digest(hashing: content)
        var unknownSuite = sealedFolder("unknown-suite")
        unknownSuite.sealed = SealedBlob(Data([9]) + unknownSuite.sealed!.bytes.dropFirst())
        var withoutBlob = sealedFolder("without-blob")
        withoutBlob.sealed = nil
        let refused = try await backend.modifyRecords(RecordBatch(zone: zone, saves: [missingDocument, clear, unknownSuite, withoutBlob]))
        #expect(refused.failed[missingDocument.id]?.code == .chunkNotFound, "\(refused.failed)")
        for invalid in [clear, unknownSuite, withoutBlob] {
            #expect(refused.failed[invalid.id]?.code == .invalidArguments, "\(invalid.id): \(refused.failed)")
        }
        #expect(refused.saved.isEmpty, "\(refused.saved.keys)")

        // Deleted: Recently Deleted keeps the last version with its blob.
        _ = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: document.id, device: "laptop")]))
        let deleted = try await backend.listDeleted(in: zone, since: nil)
        let kept = try #require(deleted.first { $0.record.id == document.id })
        #expect(kept.record.sealed == second.sealed)
        #expect(try kept.record.opened(with: keyring).version == 2)
    }
}

/// The conformance case of plaintext where encryption is on (SPEC §13: "an encrypted
/// account refuses plaintext records"): a plain record in an encrypted folder's zone is
/// refused at once; in any folder or key-value store zone once the account's key directory
/// says the account is encrypted; sealed records, sealed Values in an encrypted store's zone
/// (saved unconditionally, within the store's limits) and the key directory's own plain
/// statements are still kept.
enum EncryptedAccountConformance {
    static func refusesPlaintext(_ backend: any StorageBackend) async throws {
        let keys = try FolderEpochKeys(secret: FolderEpochKeys.newSecret(), epoch: 1)
        let encrypted = SealedRecordConformance.zone, plain = ZoneID("Plain")
        try await backend.createZone(encrypted)
        try await backend.createZone(plain)
        let intoEncrypted = try await backend.modifyRecords(RecordBatch(zone: encrypted, saves: [TestRecords.folder(encrypted, "Clear")]))
        #expect(intoEncrypted.failed.values.first?.code == .invalidArguments, "a plain record in an encrypted zone is refused: \(intoEncrypted.failed)")
        #expect(try await backend.modifyRecords(RecordBatch(zone: plain, saves: [TestRecords.folder(plain, "Before")])).failed.isEmpty,
                "a plain account keeps plain records")

        // The account's key directory says it is encrypted (whatever signs it: the store reads only that it is there).
        let directory = KeyValueStoreID(KeyDirectory.storeName)
        try await backend.createZone(directory.zone)
        let statement = Record.value(.object(["statement": .string("signed elsewhere")]), for: KeyValueKey(KeyDirectory.accountKey),
                                     in: directory, modified: Timestamp(Date()), device: "laptop")
        #expect(try await backend.modifyRecords(RecordBatch(zone: directory.zone, saves: [statement])).failed.isEmpty)
        let after = try await backend.modifyRecords(RecordBatch(zone: plain, saves: [TestRecords.folder(plain, "After")]))
        #expect(after.failed.values.first?.code == .invalidArguments, "an encrypted account refuses plaintext in every folder zone: \(after.failed)")
        let sealed = Record.sealing(TestRecords.folder(plain, "Sealed"), version: 1, with: keys, zone: encrypted)
        #expect(try await backend.modifyRecords(RecordBatch(zone: encrypted, saves: [sealed])).failed.isEmpty, "sealed records are kept")
        let store = KeyValueStoreID("org.example.editor")
        try await backend.createZone(store.zone)
        let value = Record.value(.string("dark"), for: KeyValueKey("theme"), in: store, modified: Timestamp(Date()), device: "laptop")
        #expect(try await backend.modifyRecords(RecordBatch(zone: store.zone, saves: [value])).failed.values.first?.code == .invalidArguments,
                "an encrypted account refuses plain Values too")
        let more = Record.value(.string("more"), for: KeyValueKey("statement-2"), in: directory, modified: Timestamp(Date()), device: "laptop")
        #expect(try await backend.modifyRecords(RecordBatch(zone: directory.zone, saves: [more])).failed.isEmpty, "the key directory stays plain")

        // An encrypted store's zone: sealed Values, each key's last save winning whatever its
        // tag, within the store's limits; a plain Value refused.
        let sealedStore = KeyValueSealing(zone: ZoneID("~e.conformanceconformanceconf"), nameSecret: FolderEpochKeys.newSecret())
        try await backend.createZone(sealedStore.zone)
        let keyring = FolderKeyring([keys])
        let first = sealedStore.seal(.string("dark"), for: KeyValueKey("theme"), modified: Timestamp(Date()), device: "laptop", version: 1, with: keys)
        let second = sealedStore.seal(.string("light"), for: KeyValueKey("theme"), modified: Timestamp(Date()), device: "desk", version: 2, with: keys)
        for write in [first, second] {
            #expect(try await backend.modifyRecords(RecordBatch(zone: sealedStore.zone, saves: [write])).failed.isEmpty, "saved unconditionally")
        }
        let values = try await backend.fetchAllChanges(in: sealedStore.zone, since: nil).changed
        #expect(values.count == 1)
        let opened = try sealedStore.open(try #require(values.values.first), with: keyring)
        #expect(opened.key == KeyValueKey("theme") && opened.value == .string("light") && opened.version == 2)
        let plainValue = Record(id: RecordID(zone: sealedStore.zone, recordName: "theme"), type: .value, path: RelativePath("theme"),
                                size: 6, modified: Timestamp(Date()), mode: 0, lastModifiedBy: "laptop", value: "\"dark\"")
        #expect(try await backend.modifyRecords(RecordBatch(zone: sealedStore.zone, saves: [plainValue])).failed.values.first?.code == .invalidArguments,
                "a plain Value in an encrypted store's zone is refused")
        func big(_ key: String) -> Record {
            sealedStore.seal(.string(String(repeating: "x", count: KeyValueLimits.maximumStoreBytes * 6 / 10)), for: KeyValueKey(key),
                             modified: Timestamp(Date()), device: "laptop", version: 1, with: keys)
        }
        #expect(try await backend.modifyRecords(RecordBatch(zone: sealedStore.zone, saves: [big("big-1")])).failed.isEmpty)
        #expect(try await backend.modifyRecords(RecordBatch(zone: sealedStore.zone, saves: [big("big-2")])).failed.values.first?.code == .quotaExceeded,
                "the store's limits apply to sealed Values")
    }
}
