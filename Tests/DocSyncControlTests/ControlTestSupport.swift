#if canImport(Glibc)
import Glibc
#endif
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Logging
import Testing

@testable import DocSyncControl

/// A handler that answers `status` at once and holds `wait` until `release()`, its timeout,
/// or cancellation — recording what it saw.
final class TestHandler: ControlHandler {
    let status: DaemonStatus
    private let released = Synchronized(false)
    let requests = Synchronized<[ControlRequest]>([])
    let cancelledCalls = Synchronized(0)

    init(status: DaemonStatus = ControlFramingTests.status) {
        self.status = status
    }

    func release() { released.update { $0 = true } }

    var waitCalls: Int { requests.value.filter { if case .wait = $0 { true } else { false } }.count }

    func handle(_ request: ControlRequest) async -> ControlResponse {
        requests.update { $0.append(request) }
        switch request {
        case .status:
            return .status(status)
        case .wait(let seconds):
            let deadline = ContinuousClock.now + .seconds(seconds)
            while !released.value {
                if Task.isCancelled {
                    cancelledCalls.update { $0 += 1 }
                    return .failure(code: "cancelled", message: "cancelled")
                }
                if ContinuousClock.now >= deadline {
                    return .failure(code: "timeout", message: "not settled after \(seconds) s: Documents is syncing")
                }
                try? await Task.sleep(for: .milliseconds(5))
            }
            return .settled(status)
        default:
            return .failure(code: ControlResponse.FailureCode.unknownRequest, message: "the test handler does not answer \(request)")
        }
    }
}

/// A `ControlServer` serving in a task, on a socket in a fresh short directory under /tmp
/// (socket paths must stay under 108 bytes).
final class RunningServer: Sendable {
    let directory: TemporaryDirectory
    let server: ControlServer
    let task: Task<Void, any Error>

    var socketPath: String { server.socketPath }
    var client: ControlClient { ControlClient(socketPath: socketPath) }

    init(
        handler: some ControlHandler, directory: TemporaryDirectory? = nil, socketName: String = "run/control.sock",
        lineLimit: Int = ControlFraming.maximumLineLength
    ) throws {
        self.directory = try directory ?? TemporaryDirectory("ctl")
        let server = try ControlServer(
            socketPath: "\(self.directory.path)/\(socketName)", handler: handler, logger: quietLogger, lineLimit: lineLimit
        )
        self.server = server
        // Started on the server's own executor: a task on the busy cooperative pool might not
        // get to run() for seconds while the rest of the suite hashes and chunks.
        task = Task(executorPreference: ControlExecutor.shared) { try await server.run() }
    }

    /// Cancels `run()` and waits for it to return.
    func stop() async throws {
        task.cancel()
        try await task.value
    }

    deinit { task.cancel() }
}

/// A client speaking raw lines, for what `ControlClient` never sends.
final class RawConnection {
    private let connection: ControlConnection

    init(_ path: String) throws {
        let fd = try UnixSocket.makeStreamSocket()
        connection = ControlConnection(fd: fd)
        #expect(try UnixSocket.connect(fd, to: path) == .connected)
    }

    func send(_ text: String) async throws { try await send(Array(text.utf8)) }

    /// Shuts down the sending side only (`nc -N` does this after its input).
    func finishSending() {
        #expect(shutdown(connection.fd, Int32(SHUT_WR)) == 0)
    }
    func send(_ bytes: [UInt8]) async throws { try await connection.write(bytes) }

    /// The next response, or `nil` when the server closed the connection.
    func response() async throws -> ControlResponse? {
        guard let line = try await connection.readLine() else { return nil }
        return try ControlFraming.decodeResponse(line)
    }
}

/// Leaves a socket file at `path` that nobody listens on, as a daemon killed with -9 does.
func makeStaleSocket(at path: String) throws {
    let fd = try UnixSocket.makeStreamSocket()
    defer { close(fd) }
    #expect(UnixSocket.withAddress(path) { bind(fd, $0, $1) } == 0)
}

/// How long a test waits for something the server does. Generous: the whole suite shares
/// two cooperative-pool threads with CPU-heavy tests, which can hold them for many seconds.
let patience: Duration = .seconds(60)

/// Tests keep their output for test results.
let quietLogger = Logger(label: "test.control") { _ in SwiftLogNoOpLogHandler() }

func fileMode(_ path: String) throws -> Int {
    try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) & 0o777
}
