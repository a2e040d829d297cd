#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import Synchronization

/// The daemon's end of the control socket: listens on a Unix socket and answers each
/// request line with the `ControlHandler`'s response (protocol: `ControlFraming`).
///
/// What a caller may rely on:
/// - `init` sets the socket up or throws: it creates the socket's directory (mode 0700) when
///   missing, replaces a stale socket file no daemon answers on, refuses (`.alreadyInUse`)
///   when a live daemon answers, and leaves the socket with mode 0600, accepting connections.
/// - `run()` serves until its task is cancelled, each connection on its own child task.
///   Those tasks prefer a thread of their own (`ControlExecutor`), so a busy cooperative
///   pool does not delay answers; a handler not isolated to an actor runs there too, and
///   should not block it. Nothing waits for I/O on a thread: one `poll(2)` thread wakes
///   tasks when their sockets are ready. When
///   `run()` ends it cancels the calls in flight, waits for their handlers to return, closes
///   the listener and removes the socket file (only if it is still this server's). A
///   handler that ignores cancellation delays the end of `run()` until it returns.
/// - A request whose client closes the connection before the answer has its handler task
///   cancelled (a client that only shuts down its sending side still gets the answer).
/// - Calls in flight at shutdown are cancelled; what their handlers still answer is sent.
/// - A server released without running closes and removes its socket too.
public final class ControlServer: Sendable {
    public let socketPath: String
    private let handler: any ControlHandler
    private let logger: Logger
    private let listener: Mutex<Listener?>
    private let running = Atomic<Bool>(false)
    private let lineLimit: Int

    /// The bound socket, and the identity of its file so that closing removes only our own.
    private struct Listener {
        let fd: Int32
        let device: UInt64
        let inode: UInt64
    }

    /// Binds and listens on `socketPath`; throws `ControlServerError` when that is not possible.
    public convenience init(socketPath: String, handler: any ControlHandler, logger: Logger = Logger(label: "docsync.control")) throws(ControlServerError) {
        try self.init(socketPath: socketPath, handler: handler, logger: logger, lineLimit: ControlFraming.maximumLineLength)
    }

    /// `lineLimit`: the longest request line accepted (tests use a small one).
    init(socketPath: String, handler: any ControlHandler, logger: Logger, lineLimit: Int) throws(ControlServerError) {
        self.socketPath = socketPath
        self.handler = handler
        self.logger = logger
        self.lineLimit = lineLimit
        self.listener = Mutex(try Self.listen(at: socketPath, logger: logger))
    }

    deinit { close() }

    /// Serves connections until the task is cancelled, then shuts down (see the type's
    /// documentation). Throws `.notListening` if the server was closed or is already running,
    /// and `.socketFailure` if accepting fails for good.
    public func run() async throws {
        guard let fd = listener.withLock({ $0?.fd }), !running.exchange(true, ordering: .acquiringAndReleasing) else {
            throw ControlServerError.notListening(path: socketPath)
        }
        defer { close() }
        logger.info("control socket listening", metadata: ["socket": "\(socketPath)"])
        try await withTaskExecutorPreference(ControlExecutor.shared) {
            try await serveConnections(listener: fd)
        }
        logger.info("control socket closed", metadata: ["socket": "\(socketPath)"])
    }

    /// Closes the listener and removes the socket file if it is still this server's. Idempotent.
    /// `run()` does this when it ends; call it only for a server that will not run.
    public func close() {
        guard let closing = listener.withLock({ listener in
            defer { listener = nil }
            return listener
        }) else { return }
        #if canImport(Darwin)
        _ = Darwin.close(closing.fd)
        #else
        _ = Glibc.close(closing.fd)
        #endif
        if let identity = Self.identity(of: socketPath), identity.device == closing.device, identity.inode == closing.inode {
            unlink(socketPath)
        }
    }

    // MARK: Serving

    /// Accepts connections until cancelled (or closed), each served on a child task.
    private func serveConnections(listener fd: Int32) async throws {
        try await withThrowingDiscardingTaskGroup { group in
            while listener.withLock({ $0 != nil }) {  // close() under a running server ends it
                do {
                    try await IOReactor.shared.waitUntil(.readable, on: fd)
                } catch {
                    return  // cancelled: shut down
                }
                while let client = try await acceptOne(fd) {
                    group.addTask { await self.serve(fd: client) }
                }
            }
        }
    }

    /// Accepts one pending connection: its descriptor, or `nil` when none is pending.
    private func acceptOne(_ fd: Int32) async throws -> Int32? {
        while true {
            // accept4 is not visible to Swift; the flags are set right after, before any use.
            let client = accept(fd, nil, nil)
            if client >= 0 {
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
                #if canImport(Darwin)
                var on: Int32 = 1
                _ = setsockopt(client, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
                #endif
                return client
            }
            let error = currentErrno()
            switch error {
            case EAGAIN, EWOULDBLOCK:
                return nil
            case EINTR, ECONNABORTED, EPROTO:
                continue
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                logger.warning("control socket cannot accept a connection now: \(SystemCallError("accept", errno: error).reason); retrying shortly")
                try? await Task.sleep(for: .milliseconds(100))
                return nil
            default:
                if listener.withLock({ $0 == nil }) { return nil }  // closed under us
                throw ControlServerError(SystemCallError("accept", errno: error), path: socketPath)
            }
        }
    }

    /// Answers requests on one connection until the client closes it.
    private func serve(fd: Int32) async {
        let connection = ControlConnection(fd: fd, lineLimit: lineLimit)
        do {
            while let line = try await connection.readLine() {
                if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }) {
                    continue
                }
                let response: ControlResponse
                do {
                    let request = try ControlFraming.decodeRequest(line)
                    logger.debug("control request", metadata: ["request": "\(request)"])
                    guard let answer = await answer(request, fd: fd) else {
                        logger.debug("control client hung up before the answer")
                        return
                    }
                    response = answer
                } catch {
                    logger.notice("control request rejected: \(error)")
                    response = error.failureResponse
                }
                try await connection.write(Self.encode(response))
            }
        } catch let error as ControlFramingError {
            logger.notice("control connection closed: \(error)")
            try? await connection.write(Self.encode(error.failureResponse))
        } catch is CancellationError {
            // Shutting down.
        } catch {
            logger.debug("control connection ended: \(error)")
        }
    }

    private enum Outcome: Sendable {
        case answered(ControlResponse)
        case hungUp
        case clientSentMore
    }

    /// The handler's response, or `nil` if the client hung up first (the handler is then cancelled).
    private func answer(_ request: ControlRequest, fd: Int32) async -> ControlResponse? {
        await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                .answered(await self.handler.handle(request, emit: { update in
                    try? await ControlConnection.write(Self.encode(update), to: fd)
                }))
            }
            group.addTask {
                let hungUp = (try? await ControlConnection.waitForHangUp(fd: fd)) ?? false
                return hungUp ? .hungUp : .clientSentMore
            }
            for await outcome in group {
                switch outcome {
                case .answered(let response):
                    group.cancelAll()
                    return response
                case .hungUp:
                    group.cancelAll()
                    return nil
                case .clientSentMore:
                    continue  // a pipelined request: answer this one first
                }
            }
            return nil
        }
    }

    private static func encode(_ response: ControlResponse) -> [UInt8] {
        do {
            return try ControlFraming.frame(response)
        } catch {
            let failure = ControlResponse.failure(code: "internalError", message: "docsyncd could not encode its answer: \(error)")
            return (try? ControlFraming.frame(failure)) ?? Array("{\"failure\":{\"code\":\"internalError\",\"message\":\"\"}}\n".utf8)
        }
    }

    // MARK: Setting up

    private static func listen(at path: String, logger: Logger) throws(ControlServerError) -> Listener {
        guard path.utf8.count <= UnixSocket.maximumPathLength else {
            throw .socketPathTooLong(path: path, limit: UnixSocket.maximumPathLength)
        }
        try createParentDirectory(of: path)
        try removeStaleSocket(at: path, logger: logger)

        let fd: Int32
        do {
            fd = try UnixSocket.makeStreamSocket()
        } catch {
            throw ControlServerError(error, path: path)
        }
        var bound = false
        do throws(ControlServerError) {
            let status = UnixSocket.withAddress(path) { address, length in bind(fd, address, length) == 0 ? 0 : currentErrno() }
            switch status {
            case 0: bound = true
            case EADDRINUSE: throw .alreadyInUse(path: path)
            case let error?: throw ControlServerError(SystemCallError("bind", errno: error), path: path)
            case nil: throw .socketPathTooLong(path: path, limit: UnixSocket.maximumPathLength)
            }
            // Nobody can connect before listen(), so the socket is never reachable with a wider mode.
            guard chmod(path, 0o600) == 0 else { throw ControlServerError(SystemCallError("chmod"), path: path) }
            guard let identity = identity(of: path) else { throw ControlServerError(SystemCallError("stat"), path: path) }
            guard listenForConnections(fd) == 0 else { throw ControlServerError(SystemCallError("listen"), path: path) }
            return Listener(fd: fd, device: identity.device, inode: identity.inode)
        } catch {
            closeDescriptor(fd)
            if bound { unlink(path) }
            throw error
        }
    }

    /// Creates the directories leading to the socket, the new ones with mode 0700.
    private static func createParentDirectory(of path: String) throws(ControlServerError) {
        var components = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard components.count > 1 || path.hasPrefix("/") else { return }  // relative, in the current directory
        components.removeLast()
        var directory = path.hasPrefix("/") ? "" : "."
        for component in components {
            directory += "/" + component
            if mkdir(directory, 0o700) != 0 {
                let error = currentErrno()
                guard error == EEXIST else {
                    throw .cannotCreateDirectory(path: directory, reason: SystemCallError("mkdir", errno: error).reason)
                }
            }
        }
        var info = stat()
        guard stat(directory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw .cannotCreateDirectory(path: directory, reason: "it exists and is not a directory")
        }
    }

    /// Removes a socket file no one answers on; refuses to touch a live socket or a non-socket.
    private static func removeStaleSocket(at path: String, logger: Logger) throws(ControlServerError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }  // nothing there
        guard (info.st_mode & S_IFMT) == S_IFSOCK else { throw .notASocket(path: path) }
        let probe: Int32
        do {
            probe = try UnixSocket.makeStreamSocket()
        } catch {
            throw ControlServerError(error, path: path)
        }
        defer { closeDescriptor(probe) }
        switch Result(catching: { () throws(SystemCallError) in try UnixSocket.connect(probe, to: path) }) {
        case .success:
            throw .alreadyInUse(path: path)  // connected, or the backlog is full: someone listens
        case .failure(let error) where error.errno == ECONNREFUSED:
            guard unlink(path) == 0 || currentErrno() == ENOENT else {
                throw ControlServerError(SystemCallError("unlink"), path: path)
            }
            logger.notice("removed a stale control socket no daemon answered on", metadata: ["socket": "\(path)"])
        case .failure(let error) where error.errno == ENOENT:
            return  // removed meanwhile
        case .failure(let error):
            throw ControlServerError(error, path: path)
        }
    }

    private static func identity(of path: String) -> (device: UInt64, inode: UInt64)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }
}

private func closeDescriptor(_ fd: Int32) {
    #if canImport(Darwin)
    _ = Darwin.close(fd)
    #else
    _ = Glibc.close(fd)
    #endif
}

private func listenForConnections(_ fd: Int32) -> Int32 {
    #if canImport(Darwin)
    Darwin.listen(fd, SOMAXCONN)
    #else
    Glibc.listen(fd, SOMAXCONN)
    #endif
}
