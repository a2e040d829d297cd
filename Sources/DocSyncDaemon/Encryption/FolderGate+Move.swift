import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import Foundation

/// Moving a folder that syncs into its encrypted zone (SPEC §13, `docs-status encryption
/// enable [FOLDER]`), on the device that runs it. The server's copy is the plain zone's
/// until the end; the steps, kept in `FolderMove` so that one cut short goes on:
/// 1. `move`: the folder must be settled (what the server has is here, what is here is on
///    the server) and hold no placeholder; it stops syncing the plain zone and its index is
///    dropped (its files stay);
/// 2. `carryRecentlyDeleted`: the plain zone's Recently Deleted is re-sealed into the
///    encrypted zone, then the folder starts there and uploads what it holds, sealed, as a
///    first device does;
/// 3. `finishMoves`: once it has settled there, the server makes the plain zone a redirect
///    (`moveZone`): every plaintext record and chunk is purged, and the other devices,
///    told `zoneMoved`, start in the encrypted zone keeping the files they have.
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
        await startWhatCan()
        return recovery
    }

    /// Refuses a folder that cannot move: shared with this account, encrypted already, or
    /// holding files on the server only (on demand).
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

    /// Step 2 for a folder being moved whose encrypted service is `service` (not running
    /// yet): its encrypted zone made, the plain zone's Recently Deleted re-sealed into it.
    func carryRecentlyDeleted(of service: FolderService) async throws {
        let state = FolderService.stateDirectory(of: service.folder, in: daemon)
        guard var move = FolderMove.load(in: state), !move.deletedCopied else { return }
        try await backend.createZone(service.zone)
        do throws(SyncError) {
            _ = try await service.engine.resealRecentlyDeleted(of: ZoneID(move.from), on: backend)
        } catch {
            // Moved already (a move finished whose note was not removed) or never made: nothing to carry.
            guard error.code == .zoneMoved || error.code == .zoneNotFound else { throw error }
        }
        move.deletedCopied = true
        try move.store(in: state)
    }

    /// Step 3: every folder moved here that has settled in its encrypted zone gets its plain
    /// zone made a redirect; the move is then over.
    func finishMoves() async {
        guard let set = folderSet.withLock({ $0 }) else { return }
        for service in set.all where service.engine.configuration.encryption != nil {
            let state = FolderService.stateDirectory(of: service.folder, in: daemon)
            guard let move = FolderMove.load(in: state), move.deletedCopied else { continue }
            let status = service.status()
            guard service.engine.completedRounds > 0, service.isSettled, status.pendingUploads == 0, status.held == nil else { continue }
            do throws(SyncError) {
                try await backend.moveZone(ZoneID(move.from), to: service.zone)
            } catch {
                // Done before (the answer was lost), or nothing left to redirect (the plain
                // zone was deleted meanwhile); anything else is tried again at the next turn.
                let done = (error.code == .zoneMoved && error.movedTo == service.zone) || error.code == .zoneNotFound
                guard done else {
                    logger.warning("the folder's plain zone could not be purged yet; trying again", metadata: ["path": "\(service.root.path)", "error": "\(error)"])
                    continue
                }
            }
            FolderMove.finish(in: state)
            logger.notice("the folder is encrypted: its plain zone is a redirect now and every plaintext record and chunk is purged",
                          metadata: ["path": "\(service.root.path)", "zone": "\(service.zone.name)"])
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
