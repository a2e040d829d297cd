import DocSyncControl
import DocSyncCore
import Foundation

/// Answers `docs-status` calls from the folders' live state.
struct DaemonControlHandler: ControlHandler {
    let configuration: DaemonConfiguration
    let folders: [FolderService]

    func handle(_ request: ControlRequest) async -> ControlResponse {
        switch request {
        case .status:
            return .status(status())
        case .wait(let timeoutSeconds):
            let deadline = ContinuousClock.now + .milliseconds(Int64(timeoutSeconds * 1000))
            // Settled twice in a row, 50 ms apart, so an event on its way is not missed.
            var settledChecks = 0
            while ContinuousClock.now < deadline {
                if folders.allSatisfy(\.isSettled) {
                    settledChecks += 1
                    if settledChecks >= 2 { return .settled(status()) }
                } else {
                    settledChecks = 0
                }
                try? await Task.sleep(for: .milliseconds(50))
                if Task.isCancelled { break }
            }
            return .failure(code: "timeout", message: "not settled after \(timeoutSeconds) s: \(summary(status()))")
        default:
            return .failure(code: ControlResponse.FailureCode.unknownRequest, message: "docsyncd does not answer \(request) yet")
        }
    }

    func status() -> DaemonStatus {
        let folders = self.folders.map { $0.status() }
        let signedOut = folders.contains { $0.message == "account: not signed in" }
        return DaemonStatus(device: configuration.device, backend: configuration.backend.url.absoluteString,
                            account: signedOut ? "not signed in" : "signed in", folders: folders)
    }

    private func summary(_ status: DaemonStatus) -> String {
        status.folders.map { "\($0.id) \($0.state.rawValue), \($0.pendingUploads) to send, \($0.pendingDownloads) to apply" }
            .joined(separator: "; ")
    }
}
