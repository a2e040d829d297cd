import DocSyncCore
import DocSyncStorage
import Foundation
import Testing

/// The conformance cases of key-value stores (SPEC §12): Value records in `~ID` zones,
/// saved unconditionally, deleted without Recently Deleted, within the stores' limits.
enum KeyValueConformance {
    static let store = KeyValueStoreID("org.example.editor")

    static func value(_ key: String, _ json: JSONValue, device: String = "laptop") -> Record {
        Record.value(json, for: KeyValueKey(key), in: store, modified: Timestamp(Date()), device: device)
    }

    /// Every Value of the store as a fetch from the beginning sees it.
    static func fetchAll(_ backend: any StorageBackend) async throws -> [String: JSONValue] {
        var values: [String: JSONValue] = [:]
        var token: ChangeToken?
        while true {
            let page = try await backend.fetchChanges(in: store.zone, since: token, limit: 1_000)
            for record in page.changed { values[record.keyValueKey!.name] = record.jsonValue }
            for id in page.deleted { values[KeyValueKey(recordName: id.recordName)!.name] = nil }
            token = page.token
            if !page.moreComing { return values }
        }
    }

    static func lastWriteWins(_ fixture: BackendFixture) async throws {
        let backend = fixture.backend
        let other = try await fixture.openAnotherClient()
        try await backend.createZone(store.zone)
        let first = try await backend.modifyRecords(RecordBatch(zone: store.zone, saves: [value("theme", .string("dark"))]))
        #expect(first.failed.isEmpty, "\(first.failed)")
        // Another device's save carries no tag, or a stale one: it wins all the same.
        var stale = value("theme", .string("light"), device: "desk")
        stale.changeTag = ChangeTag("stale")
        let second = try await other.modifyRecords(RecordBatch(zone: store.zone, saves: [stale, value("size", .number(14), device: "desk")]))
        #expect(second.failed.isEmpty, "\(second.failed)")
        let third = try await backend.modifyRecords(RecordBatch(zone: store.zone, saves: [value("size", .number(15))]))
        #expect(third.failed.isEmpty)
        #expect(try await fetchAll(backend) == ["theme": .string("light"), "size": .number(15)])
        #expect(try await fetchAll(other) == ["theme": .string("light"), "size": .number(15)], "every device sees the server's order")
        let saved = try #require(second.saved[stale.id])
        #expect(saved.value == "\"light\"" && saved.type == .value && saved.lastModifiedBy == "desk")
    }

    static func deletionsSkipRecentlyDeleted(_ backend: any StorageBackend) async throws {
        try await backend.createZone(store.zone)
        let theme = value("theme", .object(["name": .string("dark"), "contrast": .bool(true)]))
        _ = try await backend.modifyRecords(RecordBatch(zone: store.zone, saves: [theme]))
        // A stale base tag does not hold a Value's deletion back.
        let deleted = try await backend.modifyRecords(RecordBatch(zone: store.zone, deletions: [RecordDeletion(id: theme.id, baseTag: ChangeTag("stale"), device: "laptop")]))
        #expect(deleted.deleted == [theme.id], "\(deleted.failed)")
        #expect(try await backend.listDeleted(in: store.zone, since: nil).isEmpty, "no Recently Deleted for Values")
        let page = try await backend.fetchChanges(in: store.zone, since: nil, limit: 100)
        #expect(page.changed.isEmpty && page.deleted == [theme.id], "the removal reaches other devices as a tombstone")
        #expect(try await backend.usage().recordCount >= 0)
    }

    static func valuesOnlyInKeyValueZones(_ backend: any StorageBackend, _ folderZone: ZoneID) async throws {
        try await backend.createZone(store.zone)
        try await backend.createZone(folderZone)
        var misplaced = value("theme", .string("dark"))
        misplaced = Record(id: RecordID(zone: folderZone, recordName: misplaced.id.recordName), type: .value, path: misplaced.path,
                           size: misplaced.size, modified: misplaced.modified, mode: 0, lastModifiedBy: "laptop", value: misplaced.value)
        let inFolder = try await backend.modifyRecords(RecordBatch(zone: folderZone, saves: [misplaced]))
        #expect(inFolder.failed[misplaced.id]?.code == .invalidArguments, "a Value in a folder's zone: \(inFolder)")
        let folder = TestRecords.folder(store.zone, "notes")
        let inStore = try await backend.modifyRecords(RecordBatch(zone: store.zone, saves: [folder]))
        #expect(inStore.failed[folder.id]?.code == .invalidArguments, "a Folder in a store's zone: \(inStore)")
        var notJSON = value("theme", .string("dark"))
        notJSON.value = "{not json"
        notJSON.size = Int64(notJSON.value!.utf8.count)
        let bad = try await backend.modifyRecords(RecordBatch(zone: store.zone, saves: [notJSON]))
        #expect(bad.failed[notJSON.id]?.code == .invalidArguments, "a Value that is not JSON: \(bad)")
        #expect(try await fetchAll(backend).isEmpty)
    }

    static func limitsRefuseWithQuotaExceeded(_ backend: any StorageBackend) async throws {
        try await backend.createZone(store.zone)
        let keys = (0 ..< KeyValueLimits.maximumKeys).map { "key \($0)" }
        for batch in stride(from: 0, to: keys.count, by: RecordBatch.maximumItems) {
            let saves = keys[batch ..< min(batch + RecordBatch.maximumItems, keys.count)].map { value($0, .bool(true)) }
            let result = try await backend.modifyRecords(RecordBatch(zone: store.zone, saves: Array(saves)))
            #expect(result.failed.isEmpty, "\(result.failed.values.first.map(String.init(describing:)) ?? "")")
        }
        let oneTooMany = value("one too many", .bool(true))
        let refused = try await backend.modifyRecords(RecordBatch(zone: store.zone, saves: [oneTooMany, value("key 0", .bool(false))]))
        #expect(refused.failed[oneTooMany.id]?.code == .quotaExceeded, "the 1,025th key: \(refused)")
        #expect(refused.saved.count == 1, "a key already there can still be written")
        // Removing a key and adding another in one batch stays within the limit.
        let swapped = try await backend.modifyRecords(RecordBatch(
            zone: store.zone, saves: [oneTooMany], deletions: [RecordDeletion(id: value("key 1", .bool(true)).id)]))
        #expect(swapped.failed.isEmpty, "\(swapped)")
        #expect(try await fetchAll(backend).count == KeyValueLimits.maximumKeys)

        // Bytes: a store holds at most 1,000,000 bytes of values.
        let bytesStore = KeyValueStoreID("org.example.bytes")
        try await backend.createZone(bytesStore.zone)
        func big(_ key: String, _ count: Int) -> Record {
            Record.value(.string(String(repeating: "x", count: count - 2)), for: KeyValueKey(key), in: bytesStore, modified: Timestamp(Date()), device: "laptop")
        }
        let halves = try await backend.modifyRecords(RecordBatch(zone: bytesStore.zone, saves: [big("a", 400_000), big("b", 400_000)]))
        #expect(halves.failed.isEmpty)
        let over = big("c", 300_000)
        let overResult = try await backend.modifyRecords(RecordBatch(zone: bytesStore.zone, saves: [over]))
        #expect(overResult.failed[over.id]?.code == .quotaExceeded, "1,100,000 bytes: \(overResult.failed)")
        let tooLarge = big("d", KeyValueLimits.maximumValueBytes + 1)
        let tooLargeResult = try await backend.modifyRecords(RecordBatch(zone: bytesStore.zone, saves: [tooLarge]))
        #expect(tooLargeResult.failed[tooLarge.id]?.code == .quotaExceeded, "a value over 1,000,000 bytes")
        let shrunk = try await backend.modifyRecords(RecordBatch(zone: bytesStore.zone, saves: [big("a", 100_000), big("c", 300_000)]))
        #expect(shrunk.failed.isEmpty, "smaller values make room: \(shrunk.failed)")
    }
}
