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
///
/// Every case today is *final* (`isFinal`): it ends the answer to its request. Streaming
/// calls (a live `query --watch`) will add non-final cases sent before the final one; see
/// `ControlFraming` for how a connection carries them.
public enum ControlResponse: Codable, Sendable, Hashable {
    case status(DaemonStatus)
    /// The folders settled; the status at that moment.
    case settled(DaemonStatus)
    /// The call failed; `message` is for a person, `code` for scripts ("timeout", "unknownRequest", …).
    case failure(code: String, message: String)

    /// Whether this response ends the answer to its request. A client reads responses until
    /// it gets a final one; every case that exists today is final.
    public var isFinal: Bool {
        switch self {
        case .status, .settled, .failure: true
        }
    }
}

extension ControlResponse {
    /// `failure` codes the server itself sends, besides the handler's own ("timeout", …).
    public enum FailureCode {
        /// The request line was not valid JSON, or not a valid request (wrong fields, too long).
        public static let badRequest = "badRequest"
        /// The request names a call this daemon does not know (it may be older than the client).
        public static let unknownRequest = "unknownRequest"
        /// A `wait` ran out of time before the folders settled.
        public static let timeout = "timeout"
    }
}

/// What answers control requests inside the daemon.
public protocol ControlHandler: Sendable {
    /// Answers one request. May take as long as the call needs (`wait`); the server runs
    /// each connection on its own task.
    func handle(_ request: ControlRequest) async -> ControlResponse
}
