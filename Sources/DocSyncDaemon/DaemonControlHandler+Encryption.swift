import DocSyncControl
import DocSyncCore
import Foundation

extension DaemonControlHandler {
    /// The account's encryption as status shows it, with the folders it holds back.
    func encryptionStatus(devices: Bool = false) -> EncryptionStatus {
        var status = accountKeys.status(devices: devices)
        let waiting = folderGate.waitingFolders
        if !waiting.isEmpty { status.waitingFolders = waiting.map { "\($0.path): \($0.reason)" } }
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
                if let folder {
                    throw HandlerFailure("unsupported", "moving the folder \(folder) that already syncs into an encrypted zone is not available in this version; 'docs-status encryption enable' (no folder) turns encryption on for the account and the folders added after it")
                }
                let recovery = try await accountKeys.enable()
                await folderGate.turn(refreshing: false)
                var status = encryptionStatus()
                status.recoveryKey = recovery.text
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
