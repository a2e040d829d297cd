#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `docs-status`'s end of the control socket: one call per connection.
///
/// `send` connects, writes the request frame, reads frames until the final response
/// (`ControlFraming`) and closes. Waiting never holds a thread of the cooperative pool.
public struct ControlClient: Sendable {
    public let socketPath: String

    public init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// The time `send` allows a call by default: 10 seconds; for `wait` and `sync` their own
    /// timeout plus 10 seconds (the daemon answers one that runs out with a `timeout`
    /// failure); an hour for the calls that move items (`download`, `evict`, `restore`,
    /// `resolve`, a choice of `deletions`, `recover`) and those that ask the backend (`deleted`,
    /// an `encryption` or `devices` action: enabling encryption seals and moves folders); no
    /// limit for a live query.
    public static func defaultTimeout(for request: ControlRequest) -> Duration {
        switch request {
        case .wait(let seconds), .sync(let seconds): .seconds(min(max(0, seconds.isFinite ? seconds : 0), 1e9)) + .seconds(10)
        case .download, .evict, .pin, .unpin, .restore, .resolve, .recover, .deleted, .deletions(_, choice: .some),
             .encryption(action: .some), .devices(action: .some): .seconds(3600)
        case .query(_, watch: true), .keyValueWatch, .events(_, follow: true): .seconds(100 * 365 * 86_400)  // a century: until cancelled
        default: .seconds(10)
        }
    }

    /// Sends `request` and returns the daemon's final response (a `.failure` response is
    /// returned, not thrown). Throws `ControlClientError`: `.daemonNotRunning` when nobody
    /// answers on the socket, `.timedOut` after `timeout` (default: `defaultTimeout(for:)`),
    /// `.connectionClosed` / `.protocolViolation` when the answer is missing or unreadable.
    public func send(_ request: ControlRequest, timeout: Duration? = nil) async throws(ControlClientError) -> ControlResponse {
        try await send(request, timeout: timeout, onUpdate: { _ in })
    }

    /// Like `send`, handing each non-final response (a live query's `.changes`) to
    /// `onUpdate` as it arrives. A live query runs until the task is cancelled (then this
    /// throws `.cancelled`) or the daemon ends it.
    public func send(_ request: ControlRequest, timeout: Duration?, onUpdate: @escaping @Sendable (ControlResponse) async -> Void) async throws(ControlClientError) -> ControlResponse {
        let limit = timeout ?? Self.defaultTimeout(for: request)
        let path = socketPath
        do {
            return try await withThrowingTaskGroup(of: ControlResponse?.self) { group in
                group.addTask { try await Self.exchange(request, path: path, onUpdate: onUpdate) }
                group.addTask {
                    try await Task.sleep(for: limit)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let response = first else {
                    throw ControlClientError.timedOut(socketPath: path, after: limit)
                }
                return response
            }
        } catch let error as ControlClientError {
            throw error
        } catch {
            throw Task.isCancelled ? .cancelled : .connectionFailed(socketPath: path, reason: "\(error)")
        }
    }

    private static func exchange(_ request: ControlRequest, path: String, onUpdate: @Sendable (ControlResponse) async -> Void) async throws -> ControlResponse {
        guard path.utf8.count <= UnixSocket.maximumPathLength else {
            throw ControlClientError.socketPathTooLong(socketPath: path, limit: UnixSocket.maximumPathLength)
        }
        let connection: ControlConnection
        do {
            connection = ControlConnection(fd: try UnixSocket.makeStreamSocket())
        } catch {
            throw ControlClientError.connectionFailed(socketPath: path, reason: error.reason)
        }
        while true {
            do {
                if try UnixSocket.connect(connection.fd, to: path) == .connected { break }
                try await Task.sleep(for: .milliseconds(10))  // the daemon's backlog is full: try again
            } catch let error as SystemCallError {
                switch error.errno {
                case ENOENT, ECONNREFUSED, ENOTDIR: throw ControlClientError.daemonNotRunning(socketPath: path)
                case EACCES, EPERM: throw ControlClientError.permissionDenied(socketPath: path)
                default: throw ControlClientError.connectionFailed(socketPath: path, reason: error.reason)
                }
            }
        }
        do {
            try await connection.write(try ControlFraming.frame(request))
            while let line = try await connection.readLine() {
                if line.isEmpty { continue }
                let response = try ControlFraming.decodeResponse(line)
                if response.isFinal { return response }
                await onUpdate(response)
            }
            throw ControlClientError.connectionClosed(socketPath: path)
        } catch let error as ControlFramingError {
            throw ControlClientError.protocolViolation(socketPath: path, detail: error.description)
        } catch let error as SystemCallError {
            switch error.errno {
            case EPIPE, ECONNRESET: throw ControlClientError.connectionClosed(socketPath: path)
            default: throw ControlClientError.connectionFailed(socketPath: path, reason: error.reason)
            }
        }
    }
}
