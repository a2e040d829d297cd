import DocSyncControl
import DocSyncCore
import Foundation

extension DaemonControlHandler {
    /// The account's encryption as status shows it, with the folders it holds back.
    func encryptionStatus(devices: Bool = false) -> EncryptionStatus {
        var status = accountKeys.status(devices: devices)
        let waiting = folderGate.waitingFolders.map { "\($0.path): \($0.reason)" } + folderGate.movingFolders
        if !waiting.isEmpty { status.waitingFolders = waiting }
        let plain = folderGate.plainFolders
        if !plain.isEmpty, status.state != .off { status.plainFolders = plain }
        return status
    }

    /// `docs-status encryption [enable | recovery-key --new | recover KEY]`.
    func encryption(_ action: EncryptionAction?) async throws(HandlerFailure) -> ControlResponse {
        do {
            switch action {
            case nil:
                return .encryption(encryptionStatus())
            case .enable(let folder)?:
                let named = try folder.map { path throws(HandlerFailure) in try self.folder(named: path) }
                let keys = accountKeys
                let recovery: RecoveryKey?
                do {
                    recovery = try await folderGate.encrypt(named, turningOn: keys.isPlain ? { try await keys.enable() } : nil)
                } catch let refusal as FolderGate.MoveRefusal {
                    throw HandlerFailure(refusal.code, refusal.message)
                }
                if recovery != nil { await folderGate.turn(refreshing: false) }
                var status = encryptionStatus()
                status.recoveryKey = recovery?.text
                return .encryption(status)
            case .newRecoveryKey?:
                let recovery = try await accountKeys.newRecoveryKey()
                var status = encryptionStatus()
                status.recoveryKey = recovery.text
                return .encryption(status)
            case .recover(let text)?:
                try await accountKeys.recover(with: text)
                await folderGate.turn(refreshing: false)
                return .encryption(encryptionStatus())
            }
        } catch let failure as AccountKeyFailure {
            throw HandlerFailure(failure.code, failure.message)
        } catch let failure as HandlerFailure {
            throw failure
        } catch {
            throw HandlerFailure("internalError", "\(error)")
        }
    }

    /// `docs-status devices [approve NAME --fingerprint CODE | remove NAME]`.
    func devices(_ action: DeviceAction?) async throws(HandlerFailure) -> ControlResponse {
        do {
            switch action {
            case let .approve(name, fingerprint)?: try await accountKeys.approve(name, fingerprint: fingerprint)
            case let .remove(name)?: try await accountKeys.remove(name)
            case nil: _ = try? await accountKeys.refresh()
            }
            return .encryption(encryptionStatus(devices: true))
        } catch {
            throw HandlerFailure(error.code, error.message)
        }
    }
}
