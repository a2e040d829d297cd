#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin wrappers over the socket calls the control socket uses. Every descriptor is
/// non-blocking and close-on-exec; waiting is `IOReactor`'s job.
enum UnixSocket {
    /// The longest socket path the kernel accepts (`sun_path` holds it with its NUL).
    static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// A fresh non-blocking, close-on-exec Unix stream socket.
    static func makeStreamSocket() throws(SystemCallError) -> Int32 {
        #if canImport(Darwin)
        let fd = socket(AF_UNIX, SOCK_STREAM, 0)
        if fd >= 0 {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var on: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        #else
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #endif
        guard fd >= 0 else { throw SystemCallError("socket") }
        return fd
    }

    /// Calls `body` with `path` as a `sockaddr_un`; `nil` when the path is too long.
    static func withAddress<T>(
        _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T
    ) -> T? {
        let bytes = Array(path.utf8)
        guard bytes.count <= maximumPathLength, !bytes.contains(0) else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    /// Result of a non-blocking `connect`.
    enum ConnectOutcome: Equatable {
        case connected
        /// The listener's backlog is full (`EAGAIN`): someone listens but is busy.
        case busy
    }

    /// Connects the non-blocking socket `fd` to `path`. Throws the `connect` error
    /// (`ENOENT`: no socket file; `ECONNREFUSED`: nobody listens; `ENAMETOOLONG`: path too long).
    static func connect(_ fd: Int32, to path: String) throws(SystemCallError) -> ConnectOutcome {
        let result = withAddress(path) { address, length in
            while true {
                #if canImport(Darwin)
                let status = Darwin.connect(fd, address, length)
                #else
                let status = Glibc.connect(fd, address, length)
                #endif
                if status == 0 { return Int32(0) }
                let error = currentErrno()
                if error != EINTR { return error }
            }
        }
        switch result {
        case nil: throw SystemCallError("connect", errno: ENAMETOOLONG)
        case 0: return .connected
        case EAGAIN, EINPROGRESS: return .busy
        case let error?: throw SystemCallError("connect", errno: error)
        }
    }

    /// Reads what is available into `buffer`: the byte count, 0 at end of stream, or `nil`
    /// when nothing is available yet.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, peek: Bool = false) throws(SystemCallError) -> Int? {
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, peek ? Int32(MSG_PEEK) : 0)
            if count >= 0 { return count }
            let error = currentErrno()
            switch error {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            default: throw SystemCallError("recv", errno: error)
            }
        }
    }

    /// Writes as much of `bytes` as the socket takes now; the count, 0 when it takes nothing yet.
    /// Never raises `SIGPIPE`: a closed peer is an `EPIPE` error.
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemCallError) -> Int {
        #if canImport(Darwin)
        let flags: Int32 = 0
        #else
        let flags = Int32(MSG_NOSIGNAL)
        #endif
        while true {
            #if canImport(Darwin)
            let count = Darwin.send(fd, bytes.baseAddress, bytes.count, flags)
            #else
            let count = Glibc.send(fd, bytes.baseAddress, bytes.count, flags)
            #endif
            if count >= 0 { return count }
            let error = currentErrno()
            switch error {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return 0
            default: throw SystemCallError("send", errno: error)
            }
        }
    }
}
