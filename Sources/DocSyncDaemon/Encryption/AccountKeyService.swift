import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import Foundation
import Logging
import Synchronization

/// This device's part in its account's end-to-end encryption (SPEC §13): it reads the key
/// directory, decides where the device stands (`DeviceStanding`), keeps what it must in
/// the state directory (`AccountKeyFiles`), announces the device, and does what
/// `docs-status encryption` and `docs-status devices` ask. Folders ask it for their
/// opaque zone and keys (`encryption(of:)`).
///
/// What a caller may rely on: a device that holds the account keys, or ever saw the
/// account encrypted, never treats it as plain again, whatever the server shows; nothing
/// is trusted that the account did not sign or the person did not confirm with the code.
final class AccountKeyService: Sendable {
    let device: EncryptionKeyPair
    let deviceName: String
    let files: AccountKeyFiles
    let client: KeyDirectoryClient
    let logger: Logger

    private struct State {
        var standing: DeviceStanding?
        var directory = KeyDirectory()
        /// Why the last look at the directory failed, if it did.
        var lastError: String?
        /// Whether it failed because the server refused this device's token.
        var refusedToken = false
        /// The key sources handed to folders, by opaque zone, kept up to date.
        var sources: [ZoneID: FolderKeySource] = [:]
    }

    private let state = Mutex(State())

    init(device: EncryptionKeyPair, deviceName: String, stateDirectory: URL, backend: any StorageBackend, logger: Logger) {
        self.device = device
        self.deviceName = deviceName
        files = AccountKeyFiles(directory: stateDirectory)
        client = KeyDirectoryClient(backend: backend, writer: DeviceID(device.publicKeys))
        var logger = logger
        logger[metadataKey: "device-id"] = "\(DeviceID(device.publicKeys))"
        self.logger = logger
    }

    /// The key directory as last read.
    var directory: KeyDirectory { state.withLock { $0.directory } }

    /// The standing decided so far (`nil`: not known yet).
    var standing: DeviceStanding? { state.withLock { $0.standing } }

    /// Whether the standing is not known because the server refuses this device's token.
    var tokenRefused: Bool { state.withLock { $0.standing == nil && $0.refusedToken } }

    /// Decides the standing from what this device kept when that suffices (it holds the
    /// account keys), else from the server's directory; `nil` when the server cannot be
    /// asked now and nothing kept decides it.
    func start() async -> DeviceStanding? {
        do {
            if let held = try files.held() {
                state.withLock { $0.standing = .trusted(held) }
                return .trusted(held)
            }
        } catch {
            let refused = DeviceStanding.refused(EncryptionError(.missingKey, "\(error)"))
            state.withLock { $0.standing = refused }
            return refused
        }
        return try? await refresh()
    }

    /// Reads the directory again and decides the standing; keeps the account keys when this
    /// device was approved, announces it while it waits, and updates every folder's keys.
    @discardableResult
    func refresh() async throws(SyncError) -> DeviceStanding {
        let directory: KeyDirectory
        do { directory = try await client.read() } catch {
            state.withLock { state in
                state.lastError = error.message
                state.refusedToken = error.code == .notAuthenticated
            }
            throw error
        }
        let decided: DeviceStanding
        do {
            decided = DeviceStanding.decide(directory: directory, device: device, held: try files.held(), pinned: try files.pinned())
        } catch {
            decided = .refused(EncryptionError(.missingKey, "\(error)"))
        }
        switch decided {
        case let .trusted(keys):
            do { try files.hold(keys) } catch { logger.error("cannot keep the account keys", metadata: ["error": "\(error)"]) }
            try await announce(keys: keys, in: directory)
        case let .awaitingApproval(account, code):
            do { try files.pin(account) } catch { logger.error("cannot keep the account's public keys", metadata: ["error": "\(error)"]) }
            if directory.announcements[DeviceID(device.publicKeys)] == nil {
                try await client.write(try Self.encryptionFailure { try AccountKeys.announcing(device.publicKeys, name: deviceName, to: account.keys) })
                logger.notice("this device waits for approval: compare the code on a trusted device and approve it there", metadata: ["code": "\(code)"])
            }
        case let .refused(error):
            logger.error("the key directory cannot be trusted; nothing is decrypted or uploaded", metadata: ["error": "\(error)"])
        case .plainAccount:
            break
        }
        let sources = state.withLock { state in
            state.standing = decided
            state.directory = directory
            state.lastError = nil
            state.refusedToken = false
            return state.sources
        }
        for (zone, source) in sources {
            switch decided {
            case let .trusted(keys): source.update(Self.keyState(of: zone, keys: keys, directory: directory))
            case let .refused(error): source.update(.cannotDecrypt(reason: error.message))
            case .awaitingApproval, .plainAccount: source.update(.awaitingApproval)
            }
        }
        return decided
    }

    /// Makes sure a trusted device is announced and trusted in the directory (after the
    /// recovery key, or a directory that lost its entries).
    private func announce(keys: AccountKeys, in directory: KeyDirectory) async throws(SyncError) {
        var writes = KeyDirectoryWrites()
        let id = DeviceID(device.publicKeys)
        if directory.announcements[id] == nil {
            writes.merge(try Self.encryptionFailure { try AccountKeys.announcing(device.publicKeys, name: deviceName, to: keys.publicKeys) })
        }
        if !keys.trusts(id, in: directory) { writes.merge(try Self.encryptionFailure { try keys.trusting(device.publicKeys) }) }
        try await client.write(writes)
    }

    // MARK: folders

    /// An encrypted folder's zone on the wire and its key source, `nil` for a plain
    /// account. Only for a trusted device.
    func encryption(of folderZone: ZoneID) -> (zone: ZoneID, keys: FolderKeySource)? {
        guard case let .trusted(keys)? = standing else { return nil }
        let zone = keys.opaqueZoneName(for: folderZone)
        return state.withLock { state in
            if let source = state.sources[zone] { return (zone, source) }
            let source = FolderKeySource(Self.keyState(of: zone, keys: keys, directory: state.directory))
            state.sources[zone] = source
            return (zone, source)
        }
    }

    /// How the key-value store whose plain zone is `storeZone` is sealed (SPEC §12, §13): its
    /// opaque zone, record names and keys; `nil` unless this device is trusted.
    func keyValueEncryption(of storeZone: ZoneID) -> KeyValueEncryption? {
        guard case let .trusted(keys)? = standing, let encryption = encryption(of: storeZone) else { return nil }
        return KeyValueEncryption(sealing: KeyValueSealing(zone: encryption.zone, nameSecret: keys.zoneNameSecret), keys: encryption.keys)
    }

    /// The keys of `zone`: every epoch the directory has for `keys` (the first derived when
    /// it has none), or why there are none.
    static func keyState(of zone: ZoneID, keys: AccountKeys, directory: KeyDirectory) -> FolderKeySource.State {
        guard let keyring = keys.keyring(of: zone, in: directory) else {
            return .cannotDecrypt(reason: "the folder's keys in the key directory do not open with the account's keys")
        }
        return .available(keyring)
    }

    /// Writes the first epoch's entry of `zone` when the directory lacks it (so a reader with
    /// the recovery key finds every folder's keys in the directory).
    func recordFirstEpoch(of zone: ZoneID) async throws(SyncError) {
        guard case let .trusted(keys)? = standing else { return }
        let present = state.withLock { $0.directory.zonesWithKeys.contains(zone) }
        guard !present else { return }
        try await client.write(try Self.encryptionFailure { try keys.startingEpoch(1, of: zone, secret: keys.firstEpochSecret(of: zone)) })
    }

    // MARK: what docs-status asks

    /// The status `docs-status` shows.
    func status(devices: Bool = false) -> EncryptionStatus {
        let (standing, directory, lastError) = state.withLock { ($0.standing, $0.directory, $0.lastError) }
        switch standing {
        case nil:
            return EncryptionStatus(state: .unknown, message: "waiting for the server to say whether the account is encrypted" + (lastError.map { " (\($0))" } ?? ""))
        case .plainAccount?:
            return EncryptionStatus(state: .off)
        case let .trusted(keys)?:
            return EncryptionStatus(state: .on, devices: devices ? deviceEntries(keys: keys, directory: directory) : nil)
        case let .awaitingApproval(_, code)?:
            return EncryptionStatus(state: .awaitingApproval, approvalCode: code, message:
                "this device waits for approval: on a trusted device run 'docs-status devices approve \(deviceName) --fingerprint \(code.replacingOccurrences(of: " ", with: "-"))' after checking it shows the same code, or enter the recovery key with 'docs-status encryption recover KEY'")
        case let .refused(error)?:
            return EncryptionStatus(state: .cannotDecrypt, message: "the account's folders cannot be decrypted on this device: \(error.message)")
        }
    }

    private func deviceEntries(keys: AccountKeys, directory: KeyDirectory) -> [DeviceEntry] {
        let me = DeviceID(device.publicKeys)
        return directory.announcements.values.map { announcement in
            DeviceEntry(name: keys.name(of: announcement) ?? "(name unreadable)", id: announcement.id.text,
                        trusted: keys.trusts(announcement.id, in: directory), isThisDevice: announcement.id == me,
                        approvalCode: ApprovalCode.of(account: keys.publicKeys, device: announcement.publicKeys))
        }.sorted { ($0.trusted ? 0 : 1, $0.name) < ($1.trusted ? 0 : 1, $1.name) }
    }

    /// Whether the account is plain, as far as this device knows (or not known yet: `enable`
    /// reads the server's directory and refuses when it is encrypted).
    var isPlain: Bool {
        switch standing {
        case .plainAccount?, nil: true
        default: false
        }
    }

    /// Turns encryption on for the account; returns the recovery key to show once. The
    /// folders that sync plain are moved afterwards (`FolderGate.move`); until they are, the
    /// server refuses their plain records.
    func enable() async throws(AccountKeyFailure) -> RecoveryKey {
        let directory = try await failure { try await client.read() }
        if directory.isEncrypted || standing.map({ if case .plainAccount = $0 { false } else { true } }) == true {
            throw AccountKeyFailure(.invalidArguments, "encryption is already on for this account")
        }
        let keys = AccountKeys.generate()
        let recovery = RecoveryKey()
        let writes = try failure { try keys.enabling(recoveryKey: recovery, device: device.publicKeys, name: deviceName) }
        do { try files.hold(keys) } catch { throw AccountKeyFailure(.internalError, "cannot keep the account keys in the state directory: \(error)") }
        try await failure { try await client.write(writes) }
        try await failure { try await refresh() }
        logger.notice("encryption turned on for the account")
        return recovery
    }

    /// A new recovery key; the old one opens nothing any more.
    func newRecoveryKey() async throws(AccountKeyFailure) -> RecoveryKey {
        guard case let .trusted(keys)? = standing else { throw AccountKeyFailure(.invalidArguments, "only a trusted device of an encrypted account can make a recovery key") }
        let recovery = RecoveryKey()
        try await failure { try await client.write(try keys.replacingRecovery(with: recovery.agreementKey.publicKey)) }
        logger.notice("the recovery key was replaced")
        return recovery
    }

    /// Enters the recovery key: this device becomes trusted.
    func recover(with text: String) async throws(AccountKeyFailure) {
        let recovery = try failure { try RecoveryKey(text: text) }
        let directory = try await failure { try await client.read() }
        let pinned = (try? files.pinned()) ?? nil
        let keys = try failure { try DeviceStanding.recovering(with: recovery, directory: directory, pinned: pinned) }
        do { try files.hold(keys) } catch { throw AccountKeyFailure(.internalError, "cannot keep the account keys in the state directory: \(error)") }
        try await failure { try await refresh() }
        logger.notice("the recovery key was entered; this device is trusted")
    }

    /// Approves the device named `name` once `fingerprint` matches its code.
    func approve(_ name: String, fingerprint: String) async throws(AccountKeyFailure) {
        guard case let .trusted(keys)? = standing else { throw AccountKeyFailure(.invalidArguments, "only a trusted device can approve another") }
        let directory = try await failure { try await client.read() }
        let named = directory.announcements.values.filter { keys.name(of: $0) == name }
        guard !named.isEmpty else { throw AccountKeyFailure(code: "notFound", "no device named \(name) waits for approval; start docsyncd on it first (docs-status devices lists the account's devices)") }
        // Several announcements under one name (a device set up again): the code picks one;
        // `approving` refuses a code that matches none.
        let announcement = named.first { ApprovalCode.matches(fingerprint, ApprovalCode.of(account: keys.publicKeys, device: $0.publicKeys)) } ?? named[0]
        let writes = try failure { try keys.approving(announcement, code: fingerprint) }
        try await failure { try await client.write(writes) }
        try await failure { try await refresh() }
        logger.notice("approved a device", metadata: ["name": "\(name)", "id": "\(announcement.id)"])
    }

    /// Removes the device named `name` (SPEC §13): the account's next generation of keys and
    /// a new epoch of every encrypted zone, so nothing written from now on is readable with
    /// what that device holds; every other trusted device follows by itself.
    func remove(_ name: String) async throws(AccountKeyFailure) {
        guard case let .trusted(keys)? = standing else { throw AccountKeyFailure(.invalidArguments, "only a trusted device can remove another") }
        let directory = try await failure { try await client.read() }
        let me = DeviceID(device.publicKeys)
        let named = directory.announcements.values.filter { keys.name(of: $0) == name && keys.trusts($0.id, in: directory) }
        guard let target = named.first else {
            throw AccountKeyFailure(code: "notFound", "no trusted device is named \(name) (docs-status devices lists them)")
        }
        guard target.id != me else { throw AccountKeyFailure(.invalidArguments, "a device cannot remove itself; remove \(name) from another trusted device") }
        let zones = try await failure { try await client.backend.listZones().filter { $0.name.hasPrefix("e.") || $0.name.hasPrefix("~e.") } }
        let (next, writes) = try failure { try keys.rotating(removing: target.id, in: directory, zones: zones) }
        try await failure { try await client.write(writes, atomic: true) }
        do { try files.hold(next) } catch { logger.error("cannot keep the account's new keys; they are read again from the server", metadata: ["error": "\(error)"]) }
        try await failure { try await refresh() }
        logger.notice("removed a device: the account's keys and every folder's epoch are new", metadata: ["name": "\(name)", "id": "\(target.id)", "generation": "\(next.generation)"])
    }

    // MARK: errors

    static func encryptionFailure<T>(_ body: () throws -> T) throws(SyncError) -> T {
        do { return try body() } catch { throw SyncError(.internalError, (error as? EncryptionError)?.message ?? "\(error)") }
    }

    private func failure<T>(_ body: () async throws -> T) async throws(AccountKeyFailure) -> T {
        do { return try await body() } catch { throw AccountKeyFailure(error) }
    }

    private func failure<T>(_ body: () throws -> T) throws(AccountKeyFailure) -> T {
        do { return try body() } catch { throw AccountKeyFailure(error) }
    }
}

/// Why an encryption or devices call did nothing: a failure code for the control socket and
/// what to do.
struct AccountKeyFailure: Error {
    let code: String
    let message: String

    init(_ code: SyncError.Code, _ message: String) {
        self.init(code: code.rawValue, message)
    }

    init(code: String, _ message: String) {
        self.code = code
        self.message = message
    }

    init(_ error: any Error) {
        if let failure = error as? AccountKeyFailure { self = failure; return }
        if let sync = error as? SyncError { (code, message) = (sync.code.rawValue, "the backend could not answer: \(sync.message)"); return }
        if let encryption = error as? EncryptionError { (code, message) = ("invalidArguments", encryption.message); return }
        (code, message) = ("internalError", "\(error)")
    }
}
