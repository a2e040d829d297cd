import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import Foundation

/// Moving a folder that syncs into its encrypted zone (SPEC §13, `docs-status encryption
/// enable [FOLDER]`), on the device that runs it. The server's copy is the plain zone's
/// until the end; the steps, kept in `FolderMove` so that one cut short goes on:
/// 1. `encrypt`: the folder must be settled (what the server has is here, what is here is
///    on the server) and hold no placeholder; it stops syncing the plain zone, its index is
///    dropped (its files stay), and it starts in the encrypted zone, uploading what it
///    holds, sealed, as a first device does;
/// 2. `finishMoves`, once it has settled there: it is stopped a moment, the plain zone's
///    Recently Deleted is re-sealed into the encrypted zone (after the join, so that no
///    file here is taken for a deletion arriving late; while stopped, so that no copied
///    record is placed for the moment it lives), and the server makes the plain zone a
///    redirect (`moveZone`): every plaintext record and chunk is purged. It starts again,
///    and the other devices, told `zoneMoved`, start in the encrypted zone keeping the
///    files they have.
extension FolderGate {
    /// Why a folder cannot be moved now, for a person.
    struct MoveRefusal: Error {
        var code: String
        var message: String
    }

    /// `docs-status encryption enable [FOLDER]`: checks that `named` — or, without it, every
    /// folder of this device that syncs plain — can move (its own, not on demand with files
    /// on the server only, settled within `timeout`), then runs `turnOn` when given (turning
    /// the account's encryption on; its recovery key is returned) and begins each move: the
    /// folder stops syncing its plain zone and starts (or waits to start) in its encrypted
    /// one. All in one turn of the gate, so no other turn restarts a folder meanwhile. The
    /// rest goes on in the gate's turns; status lists each folder among those waiting until
    /// its move is done, so `docs-status wait` returns after it.
    func encrypt(_ named: FolderService?, turningOn turnOn: (() async throws -> RecoveryKey)?,
                 settleWithin timeout: Duration = .seconds(60)) async throws -> RecoveryKey? {
        await turns.acquire()
        defer { turns.release() }
        guard let set = folderSet.withLock({ $0 }) else { return nil }
        let folders = named.map { [$0] } ?? set.all.filter { $0.engine.configuration.share == nil && $0.engine.configuration.encryption == nil }
        for service in folders { try checkMovable(service) }
        for service in folders { try await settle(service, within: timeout) }
        let recovery = try await turnOn?()
        guard case .trusted? = keys.standing else {
            throw MoveRefusal(code: "invalidArguments", message: "only a trusted device of an encrypted account moves a folder into its encrypted zone")
        }
        if recovery == nil, folders.isEmpty {
            throw MoveRefusal(code: "invalidArguments", message: "encryption is already on for this account, and every folder of this device is encrypted")
        }
        for service in folders {
            let state = FolderService.stateDirectory(of: service.folder, in: daemon)
            do { try FolderMove(from: service.zone.name).store(in: state) } catch {
                throw MoveRefusal(code: "internalError", message: "cannot note the move in \(state.path): \(error)")
            }
            await set.remove(service)
            dropIndex(of: service.folder)
            logger.notice("moving the folder into its encrypted zone", metadata: ["path": "\(service.root.path)", "from": "\(service.zone.name)"])
            waiting.withLock { $0.append((service.folder, Self.moving)) }
        }
        startWhatCan()
        return recovery
    }

    /// Refuses a folder that cannot move: shared with this account (its owner moves it),
    /// encrypted already, or holding files on the server only (on demand). A folder this
    /// account shares with others moves: the server carries its participants into the
    /// encrypted zone, their devices follow (`followMovedShares`), and each gets the keys
    /// once its fingerprint is confirmed.
    private func checkMovable(_ service: FolderService) throws(MoveRefusal) {
        let path = service.root.path
        guard service.engine.configuration.share == nil else {
            throw MoveRefusal(code: "invalidArguments", message: "\(path) is a folder shared with this account: its owner's devices encrypt it")
        }
        guard service.engine.configuration.encryption == nil else {
            throw MoveRefusal(code: "invalidArguments", message: "\(path) is encrypted already")
        }
        let placeholders = service.engine.placeholderCount()
        guard placeholders == 0 else {
            throw MoveRefusal(code: "unsupported", message: "\(path) keeps \(placeholders) file\(placeholders == 1 ? "" : "s") on the server only (on demand): "
                + "download them first ('docs-status download \(path)'), then move it; the device that moves a folder uploads it sealed from what it holds")
        }
    }

    /// Why a folder being moved is listed among those waiting.
    static let moving = "moving into its encrypted zone (sealed and uploaded from this device; then the server purges the plaintext)"

    /// Waits until `service` has finished a sync round and is settled with nothing to send
    /// or apply; refuses when that takes longer than `timeout`.
    private func settle(_ service: FolderService, within timeout: Duration) async throws(MoveRefusal) {
        let rounds = service.engine.completedRounds
        service.engine.requestSync()
        let deadline = ContinuousClock.now + timeout
        var settledChecks = 0
        while ContinuousClock.now < deadline {
            let status = service.status()
            if service.engine.completedRounds > rounds, service.isSettled, status.pendingUploads == 0, status.pendingDownloads == 0, status.held == nil {
                settledChecks += 1
                if settledChecks >= 2 { return }
            } else {
                settledChecks = 0
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        let status = service.status()
        throw MoveRefusal(code: "timeout", message: "\(service.root.path) is not settled (\(status.state.rawValue), \(status.pendingUploads) to send, "
            + "\(status.pendingDownloads) to apply\(status.message.map { ": " + $0 } ?? "")): move it once 'docs-status wait' returns")
    }

    /// Step 2: every folder being moved here that has settled in its encrypted zone is
    /// stopped, gets the plain zone's Recently Deleted carried and its plain zone made a
    /// redirect, and starts again; the move is then over. A step that fails is tried again
    /// at the next turn (the folder restarts meanwhile).
    func finishMoves() async {
        guard let set = folderSet.withLock({ $0 }) else { return }
        for service in set.all where service.engine.configuration.encryption != nil {
            let state = FolderService.stateDirectory(of: service.folder, in: daemon)
            guard var move = FolderMove.load(in: state) else { continue }
            let status = service.status()
            guard service.engine.completedRounds > 0, service.isSettled, status.pendingUploads == 0, status.held == nil else { continue }
            await set.remove(service)
            do {
                if !move.deletedCopied {
                    try await carryRecentlyDeleted(from: ZoneID(move.from), into: service)
                    move.deletedCopied = true
                    try move.store(in: state)
                }
                try await redirect(ZoneID(move.from), to: service.zone)
                FolderMove.finish(in: state)
                logger.notice("the folder is encrypted: its plain zone is a redirect now and every plaintext record and chunk is purged",
                              metadata: ["path": "\(service.root.path)", "zone": "\(service.zone.name)"])
            } catch {
                logger.warning("the folder's move into its encrypted zone could not finish yet; trying again", metadata: ["path": "\(service.root.path)", "error": "\(error)"])
            }
            waiting.withLock { $0.append((service.folder, Self.restarting)) }
        }
        startWhatCan()
    }

    /// The plain zone's Recently Deleted re-sealed into `service`'s encrypted zone (its
    /// engine not running). A plain zone gone (moved already, never made) has nothing to carry.
    private func carryRecentlyDeleted(from plain: ZoneID, into service: FolderService) async throws(SyncError) {
        do {
            _ = try await service.engine.resealRecentlyDeleted(of: plain, on: backend)
        } catch {
            guard error.code == .zoneMoved || error.code == .zoneNotFound else { throw error }
        }
    }

    /// The plain zone made a redirect to `target`: done when it is one already (an answer
    /// lost) or does not exist (deleted meanwhile).
    private func redirect(_ plain: ZoneID, to target: ZoneID) async throws(SyncError) {
        do {
            try await backend.moveZone(plain, to: target)
        } catch {
            guard (error.code == .zoneMoved && error.movedTo == target) || error.code == .zoneNotFound else { throw error }
        }
    }

    /// The folders being moved here, "PATH: moving…", for status (they count as waiting).
    var movingFolders: [String] {
        guard let set = folderSet.withLock({ $0 }) else { return [] }
        return set.all.compactMap { service in
            guard FolderMove.load(in: FolderService.stateDirectory(of: service.folder, in: daemon)) != nil else { return nil }
            return "\(service.root.path): \(Self.moving)"
        }
    }

    /// Whether a move waits for its next step, or a folder was told its zone moved.
    var movesPending: Bool {
        guard let set = folderSet.withLock({ $0 }) else { return false }
        return set.all.contains { service in
            service.engine.zoneMovedTo != nil || FolderMove.load(in: FolderService.stateDirectory(of: service.folder, in: daemon)) != nil
        }
    }
}
