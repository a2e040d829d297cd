import DocSyncCore
import DocSyncEngine
import DocSyncHTTP
import DocSyncStorage
import Foundation
import Logging
import Synchronization

/// This device's part in encrypted folders shared between accounts (SPEC §11, §13;
/// `ShareKeys`), on a trusted device of an encrypted account, at each turn of the folder
/// gate:
/// - publishes the account's public keys in its public store;
/// - as an owner, wraps each shared encrypted folder's epochs for every participant whose
///   fingerprint was confirmed, and starts a new epoch when one was removed or its keys
///   changed (`AccountKeys.sharingPlan`);
/// - as a participant, pins an owner's keys when it first sees an invitation to an
///   encrypted folder, and hands each attached encrypted share its keys once the owner
///   wrapped them (`source(for:)`).
///
/// What a caller may rely on: nothing is wrapped for keys the person did not confirm with
/// the code, nothing is opened that the pinned owner did not sign; a participant that is
/// not reachable now is left as it is (its wraps stay), never taken for removed.
final class ShareKeyService: Sendable {
    let keys: AccountKeyService
    let backend: any StorageBackend
    let logger: Logger

    private struct State {
        /// The key sources of attached encrypted shares, kept up to date.
        var sources: [ShareName: FolderKeySource] = [:]
        /// The backends reaching other accounts' public stores, by account.
        var reaching: [String: HTTPBackend] = [:]
        /// Each share owner's keys now, as last reached from this account's pin.
        var owners: [String: PinnedAccount] = [:]
        /// When the last turn began, and how many sources there were then.
        var lastTurn: ContinuousClock.Instant?
        var sourcesAtLastTurn = 0
    }

    private let state = Mutex(State())
    /// Asks the folder gate for a turn soon (a record needed an epoch not held yet).
    let wantsTurn = Mutex<(@Sendable () -> Void)?>(nil)

    init(keys: AccountKeyService, backend: any StorageBackend, logger: Logger) {
        self.keys = keys
        self.backend = backend
        self.logger = logger
    }

    /// Whether `share` is of an encrypted folder (its zone's name is opaque).
    static func isEncrypted(_ share: ShareName) -> Bool { share.zone.isEncryptedFolder }

    /// The key source of the attached encrypted share `share`: waiting until its keys come.
    func source(for share: ShareName) -> FolderKeySource {
        state.withLock { state in
            if let source = state.sources[share] { return source }
            let source = FolderKeySource(.waiting(reason: "waiting for the keys of \(share)"))
            source.whenKeysAreMissing { [weak self] in self?.wantsTurn.withLock { $0 }?() }
            state.sources[share] = source
            return source
        }
    }

    /// Whether a turn is due for an attached share that waits for its keys: at once after it
    /// was attached, then every 10 s (its owner may confirm the fingerprint any time).
    var dueForTurn: Bool {
        state.withLock { state in
            guard state.sources.values.contains(where: { if case .waiting = $0.current { true } else { false } }) else { return false }
            guard let last = state.lastTurn, state.sources.count <= state.sourcesAtLastTurn else { return true }
            return ContinuousClock.now - last >= .seconds(10)
        }
    }

    /// Lets go of the connections to other accounts.
    func shutdown() async {
        for client in state.withLock({ Array($0.reaching.values) }) { await client.shutdown() }
    }

    // MARK: a turn

    /// One turn: publishes, wraps for the participants of the encrypted zones `owned` (the
    /// zones of this account's own encrypted folders), and updates every attached share's
    /// keys. Errors are logged and the rest goes on; the next turn tries again.
    func turn(owned: [ZoneID]) async {
        guard let account = backend as? HTTPBackend else { return }
        let held = state.withLock { state in
            state.lastTurn = .now
            state.sourcesAtLastTurn = state.sources.count
            return state.sources
        }
        guard case let .trusted(keys)? = keys.standing else {
            let why: String
            switch keys.standing {
            case .awaitingApproval?: why = "this device waits for approval (docs-status encryption)"
            case .refused?: why = "the account's keys cannot be trusted on this device (docs-status encryption)"
            default: why = "this account is not encrypted: turn encryption on (docs-status encryption enable) to take part in an encrypted shared folder"
            }
            for source in held.values { source.update(.waiting(reason: why)) }
            return
        }
        do {
            let directory = self.keys.directory
            let publicClient = KeyDirectoryClient(backend: backend, writer: self.keys.client.writer, storeID: KeyDirectoryClient.publicStore)
            var published = try await publicClient.read()
            var writes = KeyDirectoryWrites(), own = KeyDirectoryWrites()
            for (key, value) in directory.publishedPart where published.values[key] != value { writes.values[key] = value }
            published.apply(writes)
            // Each account's public store is read once a turn, however many folders it shares.
            var read: [String: KeyDirectory] = [:]
            for zone in owned {
                guard let plan = try await plan(for: zone, keys: keys, directory: directory, published: published, account: account, read: &read) else { continue }
                if let epoch = plan.newEpoch { logger.notice("a participant of a shared encrypted folder was removed or changed keys: a new epoch starts", metadata: ["zone": "\(zone)", "epoch": "\(epoch)"]) }
                own.merge(plan.directory)
                writes.merge(plan.published)
                published.apply(plan.published)
            }
            own.merge(try await participate(account: account, keys: keys, directory: directory, read: &read))
            // The directory first: a new epoch is the owner's before it is anyone's.
            try await self.keys.client.write(own)
            try await publicClient.write(writes)
            if !own.isEmpty { try await self.keys.refresh() }
        } catch {
            logger.warning("cannot bring the keys of shared encrypted folders up to date now; trying again", metadata: ["error": "\(error)"])
        }
    }

    /// The plan of the owned zone `zone`, `nil` when it was never shared. Throws when a
    /// confirmed participant's keys cannot be read now: nothing is planned this turn, so an
    /// unreachable participant is never taken for a removed one.
    private func plan(for zone: ZoneID, keys: AccountKeys, directory: KeyDirectory, published: KeyDirectory,
                      account: HTTPBackend, read: inout [String: KeyDirectory]) async throws -> SharePlan? {
        let entries: [ShareEntry]
        do throws(SyncError) { entries = try await account.participants(of: zone).entries } catch {
            guard error.code == .zoneNotFound else { throw error }
            return nil
        }
        guard !entries.isEmpty else { return nil }
        var participants: [String: PinnedAccount] = [:]
        for entry in entries where entry.status.isOpen {
            guard let pin = keys.pin(of: entry.participant, in: directory) else { continue }
            let theirs = try await publicDirectory(of: entry.participant, read: &read)
            guard let now = theirs.account(following: pin) else {
                logger.warning("a participant's keys are not those confirmed with the fingerprint, nor signed by them; nothing new is wrapped for it",
                               metadata: ["zone": "\(zone)", "participant": "\(entry.participant)"])
                continue
            }
            participants[entry.participant] = now
        }
        return try keys.sharingPlan(of: zone, directory: directory, published: published, participants: participants)
    }

    /// As a participant: pins the owner of every open invitation or share of an encrypted
    /// folder not pinned yet (returned, to write), and hands each attached share its keys.
    private func participate(account: HTTPBackend, keys: AccountKeys, directory: KeyDirectory,
                             read: inout [String: KeyDirectory]) async throws -> KeyDirectoryWrites {
        var pins = KeyDirectoryWrites()
        let sources = state.withLock { $0.sources }
        for entry in try await account.shares() where Self.isEncrypted(entry.share) && entry.status.isOpen {
            let owner = entry.share.owner
            let theirs: KeyDirectory
            do { theirs = try await publicDirectory(of: owner, read: &read) } catch {
                logger.info("cannot read a share owner's public keys now", metadata: ["share": "\(entry.share)", "error": "\(error)"])
                continue
            }
            var pin = keys.pin(of: owner, in: directory)
            if pin == nil, let (ownerKeys, generation) = try? theirs.account() {
                pin = PinnedAccount(keys: ownerKeys, generation: generation)
                pins.merge(keys.pinning(owner, pin!))
            }
            let ownerNow = pin.flatMap { theirs.account(following: $0) }
            if let ownerNow { state.withLock { $0.owners[owner] = ownerNow } }
            guard let source = sources[entry.share] else { continue }
            source.update(Self.keyState(of: entry, keys: keys, pinned: pin != nil, ownerNow: ownerNow, published: theirs))
        }
        return pins
    }

    /// The keys of the attached share `entry`, given whether this account pinned the owner's
    /// keys, the owner's keys now as reached from that pin, and the owner's public store.
    static func keyState(of entry: ShareEntry, keys: AccountKeys, pinned: Bool, ownerNow: PinnedAccount?, published: KeyDirectory) -> FolderKeySource.State {
        let owner = entry.share.owner
        guard pinned else { return .waiting(reason: "\(owner) has not turned encryption on yet, or the server does not show \(owner)'s keys") }
        guard let ownerNow else {
            return .cannotDecrypt(reason: "the keys the server shows for \(owner) are not the ones this account confirmed, nor signed by them")
        }
        if let keyring = keys.sharedKeyring(of: entry.share.zone, owner: ownerNow, published: published, me: entry.participant) {
            return .available(keyring)
        }
        let code = ApprovalCode.ofShare(owner: ownerNow.keys, participant: keys.publicKeys)
        return .waiting(reason: "\(owner) has not given this account the folder's keys yet: \(owner) confirms it with "
            + "'docs-status share FOLDER --with \(entry.participant) --fingerprint \(code.replacingOccurrences(of: " ", with: "-"))' after comparing this code")
    }

    /// The public store of `account`, read at most once for `read` (the turn's reads).
    private func publicDirectory(of account: String, read: inout [String: KeyDirectory]) async throws(SyncError) -> KeyDirectory {
        if let known = read[account] { return known }
        let directory = try await publicDirectory(of: account)
        read[account] = directory
        return directory
    }

    /// The public store of another account, read now through a backend reaching it.
    func publicDirectory(of account: String) async throws(SyncError) -> KeyDirectory {
        guard let mine = backend as? HTTPBackend else { return KeyDirectory() }
        let client: HTTPBackend
        if let reached = state.withLock({ $0.reaching[account] }) {
            client = reached
        } else {
            let made = try mine.reaching(owner: account)
            client = state.withLock { state in
                if let raced = state.reaching[account] { return raced }
                state.reaching[account] = made
                return made
            }
            if client !== made { await made.shutdown() }
        }
        return try await KeyDirectoryClient(backend: client, writer: keys.client.writer, storeID: KeyDirectoryClient.publicStore).read()
    }

    // MARK: what docs-status asks

    /// Confirms `participant`'s keys for this account's shared folders: refused unless
    /// `code` is the share code of this account's keys and those the server shows for
    /// `participant` (`authenticationFailed`, nothing written). Then pins them; the next turn
    /// wraps the folders' keys for it.
    func confirm(_ participant: String, code: String) async throws(AccountKeyFailure) {
        guard case let .trusted(keys)? = keys.standing else {
            throw AccountKeyFailure(.invalidArguments, "only a trusted device of an encrypted account confirms a participant's fingerprint")
        }
        let theirs: KeyDirectory
        do { theirs = try await publicDirectory(of: participant) } catch { throw AccountKeyFailure(error) }
        guard let (participantKeys, generation) = try? theirs.account() else {
            throw AccountKeyFailure(.invalidArguments, "\(participant) has not turned encryption on, so it cannot take part in an encrypted folder: ask them to run 'docs-status encryption enable', then confirm again")
        }
        guard ApprovalCode.matches(code, ApprovalCode.ofShare(owner: keys.publicKeys, participant: participantKeys)) else {
            throw AccountKeyFailure(.invalidArguments, "the fingerprint does not match the one this device computes for \(participant): compare the code 'docs-status shares' shows on \(participant)'s side and type it again; if it still differs, the keys were changed on the way and nothing is shared with them")
        }
        do { try await self.keys.client.write(keys.pinning(participant, PinnedAccount(keys: participantKeys, generation: generation))) } catch { throw AccountKeyFailure(error) }
        do { try await self.keys.refresh() } catch { throw AccountKeyFailure(error) }
        logger.notice("confirmed a participant's fingerprint", metadata: ["participant": "\(participant)"])
    }

    /// Forgets the owner keys this account pinned for `share` (declined or left), unless
    /// another open share of the same owner still relies on them: a participant whose code
    /// did not match (the server showed it other keys) declines or leaves, and reads the
    /// owner's keys afresh when invited again.
    func forgetOwner(of share: ShareName) async throws(SyncError) {
        guard Self.isEncrypted(share), case let .trusted(keys)? = keys.standing, keys.pin(of: share.owner, in: self.keys.directory) != nil,
              let account = backend as? HTTPBackend else { return }
        let offered = try await account.shares()
        guard !offered.contains(where: { $0.share != share && $0.share.owner == share.owner && $0.status.isOpen }) else { return }
        try await self.keys.client.write(AccountKeys.unpinning(share.owner))
        try await self.keys.refresh()
        state.withLock { _ = $0.owners.removeValue(forKey: share.owner) }
        logger.notice("forgot the keys pinned for a share's owner (declined or left)", metadata: ["owner": "\(share.owner)"])
    }

    /// `entries` of shares offered to this account, each of an encrypted folder with the
    /// code to give its owner (or why there is none yet).
    func annotatingOffered(_ entries: [ShareEntry]) -> [ShareEntry] {
        guard case let .trusted(keys)? = keys.standing else {
            return entries.map { entry in
                var entry = entry
                if Self.isEncrypted(entry.share) { entry.keys = "encrypted: turn encryption on for this account to take part (docs-status encryption enable)" }
                return entry
            }
        }
        let directory = self.keys.directory, owners = state.withLock { $0.owners }
        return entries.map { entry in
            var entry = entry
            guard Self.isEncrypted(entry.share) else { return entry }
            if let owner = owners[entry.share.owner] ?? keys.pin(of: entry.share.owner, in: directory) {
                let code = ApprovalCode.ofShare(owner: owner.keys, participant: keys.publicKeys)
                entry.fingerprint = code
                entry.keys = "encrypted: give \(entry.share.owner) the fingerprint \(code)"
            } else {
                entry.keys = "encrypted: the fingerprint shows once this device has read \(entry.share.owner)'s keys (in a few seconds)"
            }
            return entry
        }
    }

    /// `entries` of a share of this account's encrypted folder, each with whether its
    /// participant's fingerprint was confirmed.
    func annotatingOwn(_ entries: [ShareEntry]) -> [ShareEntry] {
        guard case let .trusted(keys)? = keys.standing else { return entries }
        let directory = self.keys.directory
        return entries.map { entry in
            var entry = entry
            entry.keys = keys.pin(of: entry.participant, in: directory) != nil
                ? "fingerprint confirmed"
                : "awaiting fingerprint: docs-status share FOLDER --with \(entry.participant) --fingerprint CODE (the code 'docs-status shares' shows on \(entry.participant)'s side)"
            return entry
        }
    }
}
