/// Why the control socket could not be set up or served. Each message says what to do.
public enum ControlServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The path does not fit in a Unix socket address (at most `limit` bytes).
    case socketPathTooLong(path: String, limit: Int)
    /// A live daemon already answers on the path.
    case alreadyInUse(path: String)
    /// Something other than a socket sits at the path; it is left alone.
    case notASocket(path: String)
    /// The socket's directory could not be created.
    case cannotCreateDirectory(path: String, reason: String)
    /// A socket call failed (`operation` is the call, `reason` the system's words).
    case socketFailure(path: String, operation: String, reason: String)
    /// `run()` was called on a server that was closed or is already running.
    case notListening(path: String)

    public var description: String {
        switch self {
        case .socketPathTooLong(let path, let limit):
            "control socket path \(path) is longer than \(limit) bytes; choose a shorter one with --socket or `socket` in docsync.toml"
        case .alreadyInUse(let path):
            "another docsyncd is already running with control socket \(path); stop it first (systemctl --user stop docsyncd) or give this one another --socket"
        case .notASocket(path: let path):
            "\(path) exists and is not a socket; move it away or choose another control socket path"
        case .cannotCreateDirectory(let path, let reason):
            "cannot create the control socket's directory \(path): \(reason)"
        case .socketFailure(let path, let operation, let reason):
            "control socket \(path): \(operation) failed: \(reason)"
        case .notListening(let path):
            "control socket \(path) is closed or already being served"
        }
    }

    init(_ error: SystemCallError, path: String) {
        self = .socketFailure(path: path, operation: error.call, reason: error.reason)
    }
}
