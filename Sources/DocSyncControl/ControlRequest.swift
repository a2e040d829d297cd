import DocSyncCore

/// A call `docs-status` makes to the daemon over the control socket.
///
/// The wire form is one JSON object per line (see `ControlFraming`); new calls are added
/// as new cases, so an older daemon answers an unknown call with a `.failure`.
public enum ControlRequest: Codable, Sendable, Hashable {
    /// The overview: account, backend, every folder's state and counts.
    case status
    /// Answer once every folder is settled (idle, nothing pending, the watcher quiet), or
    /// with `.failure` after `timeoutSeconds`.
    case wait(timeoutSeconds: Double)
}

/// The daemon's answer to one `ControlRequest`.
public enum ControlResponse: Codable, Sendable, Hashable {
    case status(DaemonStatus)
    /// The folders settled; the status at that moment.
    case settled(DaemonStatus)
    /// The call failed; `message` is for a person, `code` for scripts ("timeout", "unknownRequest", …).
    case failure(code: String, message: String)
}

/// What answers control requests inside the daemon.
public protocol ControlHandler: Sendable {
    /// Answers one request. May take as long as the call needs (`wait`); the server runs
    /// each connection on its own task.
    func handle(_ request: ControlRequest) async -> ControlResponse
}
