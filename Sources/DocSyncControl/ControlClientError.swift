/// Why a control call failed on the client's side. Each message names the socket and says
/// what to do.
public enum ControlClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No socket file, or nobody listens on it (`ENOENT`, `ECONNREFUSED`).
    case daemonNotRunning(socketPath: String)
    /// The socket belongs to someone else (`EACCES`).
    case permissionDenied(socketPath: String)
    /// No final response within `after`.
    case timedOut(socketPath: String, after: Duration)
    /// The daemon closed the connection before its final response.
    case connectionClosed(socketPath: String)
    /// The daemon's answer is not a response this client understands.
    case protocolViolation(socketPath: String, detail: String)
    /// Another socket failure; `reason` is the system's.
    case connectionFailed(socketPath: String, reason: String)
    /// The path does not fit in a Unix socket address.
    case socketPathTooLong(socketPath: String, limit: Int)
    /// The calling task was cancelled.
    case cancelled

    public var description: String {
        switch self {
        case .daemonNotRunning(let path):
            "docsyncd is not running (no daemon answers on \(path))"
        case .permissionDenied(let path):
            "permission denied on \(path): the daemon there runs as another user"
        case .timedOut(let path, let after):
            "docsyncd did not answer within \(Self.seconds(after)) s (\(path))"
        case .connectionClosed(let path):
            "docsyncd closed the connection before answering (\(path)); its log may say why (journalctl --user -u docsyncd)"
        case .protocolViolation(let path, let detail):
            "docsyncd's answer could not be read (\(path)): \(detail); docs-status and docsyncd may be different versions"
        case .connectionFailed(let path, let reason):
            "cannot talk to docsyncd on \(path): \(reason)"
        case .socketPathTooLong(let path, let limit):
            "socket path \(path) is longer than \(limit) bytes"
        case .cancelled:
            "the call was cancelled"
        }
    }

    /// "2", "0.25": a duration in seconds, for messages.
    private static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = attoseconds / 1_000_000_000_000_000
        if milliseconds == 0 { return "\(seconds)" }
        var fraction = String(milliseconds + 1000).dropFirst()
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(seconds).\(fraction)"
    }
}
