import DocSyncCore
import DocSyncStorage
import Foundation

/// An encrypted account made ready before its daemons start (SPEC §13), so a benchmark
/// times encrypted sync from the first byte: each device's key pair, the account's keys
/// held by every device (all trusted), and the key directory in the `file://` backend —
/// what `docs-status encryption enable` and `devices approve` would have written.
enum EncryptedAccountSeed {
    /// Seeds `backend` (a directory) and each device's state directory.
    static func prepare(backend: URL, devices: [(name: String, stateDirectory: URL)]) async throws {
        let account = AccountKeys.generate()
        var writes = KeyDirectoryWrites()
        for (index, device) in devices.enumerated() {
            let keys = EncryptionKeyPair()
            try FileManager.default.createDirectory(at: device.stateDirectory, withIntermediateDirectories: true)
            try writePrivate(keys.privateBytes, to: device.stateDirectory.appendingPathComponent("device-key"))
            try writePrivate(account.stored, to: device.stateDirectory.appendingPathComponent("account-key"))
            try writePrivate(PinnedAccount(keys: account.publicKeys, generation: account.generation).stored,
                             to: device.stateDirectory.appendingPathComponent("account-public"))
            writes.merge(index == 0 ? try account.enabling(recoveryKey: RecoveryKey(), device: keys.publicKeys, name: device.name)
                                    : try AccountKeys.announcing(keys.publicKeys, name: device.name, to: account.publicKeys))
            writes.merge(try account.trusting(keys.publicKeys))
        }
        let store = KeyValueStoreID(KeyDirectory.storeName)
        let local = try LocalBackend(url: backend)
        try await local.createZone(store.zone)
        let saves = writes.values.compactMap { key, value in
            value.map { Record.value($0, for: KeyValueKey(key), in: store, modified: Timestamp(Date()), device: "bench") }
        }
        let result = try await local.modifyRecords(RecordBatch(zone: store.zone, saves: saves))
        guard result.failed.isEmpty else { throw BenchError("cannot write the key directory: \(result.failed)") }
    }

    static func writePrivate(_ bytes: Data, to url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: bytes, attributes: [.posixPermissions: 0o600]) else {
            throw BenchError("cannot write \(url.path)")
        }
    }
}
