import DocSyncCore
import DocSyncStorage
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// The daemon's key-value stores (SPEC §12) as a service: each store this device has used
/// (`STATE_DIR/kv/ID.sqlite`) syncs from start-up, a store first named by a program is
/// made then, and a push naming a store's zone fetches it.
///
/// A store's zone (`~ID`) is never a folder: the folders' engines sync only their own
/// zones, and nothing here lists zones. A daemon whose device never used a store opens no
/// push stream for stores until a program names one.
final class KeyValueService: Service, Sendable {
    let directory: URL
    let backend: any StorageBackend
    let device: String
    /// Whose values these are (`KeyValueService.account(of:)`).
    let account: String
    let logger: Logger
    /// The account's keys (SPEC §13): how each store syncs follows them (`followEncryption`).
    let keys: AccountKeyService?
    private let opened = Mutex<[KeyValueStoreID: KeyValueStore]>([:])
    /// The store each sealed zone on the wire is of (an encrypted account's, SPEC §13): a push
    /// names that zone, not the store's own.
    private let sealedZones = Mutex<[ZoneID: KeyValueStoreID]>([:])
    private let loops = Mutex<[Task<Void, Never>]>([])
    /// Yields once a store is open: the push stream is opened then.
    private let firstOpened: (stream: AsyncStream<Void>, continuation: AsyncStream<Void>.Continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))

    init(stateDirectory: URL, backend: any StorageBackend, device: String, account: String, keys: AccountKeyService? = nil, logger: Logger) {
        directory = stateDirectory.appendingPathComponent("kv")
        self.backend = backend
        self.device = device
        self.account = account
        self.keys = keys
        self.logger = logger
    }

    /// How `id` syncs given the account's standing now: plain for a plain account (or a
    /// device whose token the server refuses: nothing reaches it either way), sealed on a
    /// trusted device of an encrypted account, held otherwise (its writes stay here).
    func mode(of id: KeyValueStoreID) -> KeyValueSyncMode {
        guard let keys else { return .plain }
        switch keys.standing {
        case .plainAccount?: return .plain
        case .trusted?:
            guard let encryption = keys.keyValueEncryption(of: id.zone) else { return .held("the account keys are not available") }
            return .sealed(encryption)
        case .awaitingApproval?: return .held("this device waits for approval (docs-status encryption)")
        case .refused?: return .held("the account's keys cannot be trusted on this device (docs-status encryption)")
        case nil: return keys.tokenRefused ? .plain : .held("waiting for the server to say whether the account is encrypted")
        }
    }

    /// Tells every open store how it syncs now (the account's standing changed, or a store
    /// found its plain zone moved).
    func followEncryption() async {
        for (id, store) in opened.withLock({ $0 }) {
            let mode = mode(of: id)
            if case let .sealed(encryption) = mode {
                // The store's first epoch in the key directory, as a folder's: a new epoch is
                // started for it too when a device is removed.
                try? await keys?.recordFirstEpoch(of: encryption.sealing.zone)
            }
            noteZone(of: id, mode)
            await store.sync(as: mode)
        }
    }

    /// Notes the sealed zone `mode` syncs `id` in, if any.
    private func noteZone(of id: KeyValueStoreID, _ mode: KeyValueSyncMode) {
        if case let .sealed(encryption) = mode { sealedZones.withLock { $0[encryption.sealing.zone] = id } }
    }

    /// The store `id`, opened (and made, the first time) on first use; its sync starts then.
    func store(_ id: KeyValueStoreID) throws(SyncError) -> KeyValueStore {
        do {
            return try opened.withLock { opened in
                if let store = opened[id] { return store }
                let mode = mode(of: id)
                noteZone(of: id, mode)
                let store = try KeyValueStore(id: id, directory: directory, account: account, backend: backend, device: device,
                                              mode: mode, logger: logger)
                opened[id] = store
                loops.withLock { $0.append(Task { await store.run() }) }
                firstOpened.continuation.yield()
                return store
            }
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.internalError, "cannot open the key-value store \(id) in \(directory.path): \(error)")
        }
    }

    /// The stores this device has used.
    func knownStores() -> [KeyValueStoreID] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".sqlite") }.compactMap { try? KeyValueStoreID(validating: String($0.dropLast(".sqlite".count))) }.sorted()
    }

    func run() async throws {
        for id in knownStores() {
            do { _ = try store(id) } catch { logger.error("cannot open a key-value store", metadata: ["store": "\(id)", "error": "\(error)"]) }
        }
        await cancelWhenGracefulShutdown {
            var opened = self.firstOpened.stream.makeAsyncIterator()
            guard await opened.next() != nil, !Task.isCancelled else { return }
            for await notification in self.backend.changeNotifications() {
                for zone in notification.zones {
                    guard let id = self.sealedZones.withLock({ $0[zone] }) ?? KeyValueStoreID(zone: zone),
                          let store = self.opened.withLock({ $0[id] }) else { continue }
                    store.kick()
                }
            }
        }
        for loop in loops.withLock({ $0 }) { loop.cancel() }
    }

    /// Who the daemon's values belong to, from its configuration alone (so a switch is seen
    /// offline too): the directory of a `file://` backend; for a docsync-server, its address
    /// and a digest of the device's token (the server names no account to its devices). A
    /// new token, even of the same account, is therefore another account to a store: its
    /// values are fetched afresh and writes not yet sent are dropped (`accountChange`).
    static func account(of backend: BackendConfiguration) -> String {
        let address = backend.url.absoluteString
        guard let tokenFile = backend.tokenFile, let token = try? String(contentsOf: tokenFile, encoding: .utf8) else { return address }
        let digest = SHA256Digest(hashing: Array(token.trimmingCharacters(in: .whitespacesAndNewlines).utf8))
        return "\(address) token \(digest.hex.prefix(16))"
    }
}
