import DocSyncCore
import DocSyncStorage
import Foundation

/// Reads and writes the account's key directory (SPEC §13) on the backend: the values of
/// the reserved key-value store `docsync.keys` — or, made with `store: publicStore`, of the
/// account's public key store `docsync.public` (`ShareKeys`), or another account's through
/// a backend reaching that account. Writes are saved unconditionally (as every
/// key-value write: the last to reach the server wins), each naming the writing device by
/// its `DeviceID`, never by its name.
struct KeyDirectoryClient: Sendable {
    let backend: any StorageBackend
    /// Who the writes name as their device: the writing device's id.
    let writer: DeviceID
    /// The store read and written.
    var storeID = Self.store

    static let store = KeyValueStoreID(KeyDirectory.storeName)
    static let publicStore = KeyValueStoreID(KeyDirectory.publicStoreName)

    /// The whole directory as the server holds it now (empty when it has no such zone).
    func read() async throws(SyncError) -> KeyDirectory {
        var values: [String: JSONValue] = [:]
        var token: ChangeToken?
        while true {
            let page: ChangeSet
            do {
                page = try await backend.fetchChanges(in: storeID.zone, since: token, limit: 1_000)
            } catch where error.code == .zoneNotFound {
                return KeyDirectory()
            }
            for record in page.changed {
                guard let key = record.keyValueKey, let value = record.jsonValue else { continue }
                values[key.name] = value
            }
            for deleted in page.deleted {
                if let key = KeyValueKey(recordName: deleted.recordName) { values[key.name] = nil }
            }
            token = page.token
            if !page.moreComing { break }
        }
        return KeyDirectory(values: values)
    }

    /// Saves `writes`; throws the first item's refusal. `atomic`: all or nothing (a new
    /// generation); otherwise what was saved stays saved, and writing the same values again
    /// is harmless.
    func write(_ writes: KeyDirectoryWrites, atomic: Bool = false) async throws(SyncError) {
        guard !writes.isEmpty else { return }
        var batch = RecordBatch(zone: storeID.zone, atomic: atomic)
        let now = Timestamp(Date())
        for (name, value) in writes.values.sorted(by: { $0.key < $1.key }) {
            let key = try KeyValueKey(validating: name)
            if let value {
                batch.saves.append(Record.value(value, for: key, in: storeID, modified: now, device: writer.text))
            } else {
                batch.deletions.append(RecordDeletion(id: RecordID(zone: storeID.zone, recordName: key.recordName), device: writer.text))
            }
        }
        let result: ModifyResult
        do {
            result = try await backend.modifyRecords(batch)
        } catch where error.code == .zoneNotFound {
            try await backend.createZone(storeID.zone)
            result = try await backend.modifyRecords(batch)
        }
        if let failure = result.failed.sorted(by: { $0.key.recordName < $1.key.recordName }).first(where: { $0.value.code != .unknownItem }) {
            throw failure.value
        }
    }
}
