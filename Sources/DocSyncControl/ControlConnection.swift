#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One connected control socket, read and written a line at a time without blocking a thread.
///
/// Owned by one task; closes its descriptor when released.
final class ControlConnection {
    let fd: Int32
    private var buffer: ControlLineBuffer
    private var receiveBuffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// Takes ownership of the non-blocking descriptor `fd`.
    init(fd: Int32, lineLimit: Int = ControlFraming.maximumLineLength) {
        self.fd = fd
        self.buffer = ControlLineBuffer(limit: lineLimit)
    }

    deinit { close(fd) }

    /// The next line without its newline; `nil` when the peer closed the connection between lines.
    /// Throws `ControlFramingError` (`.lineTooLong`, `.truncatedLine`), `SystemCallError`, or
    /// `CancellationError`.
    func readLine() async throws -> [UInt8]? {
        while true {
            if let line = try buffer.nextLine() { return line }
            let received = try receiveBuffer.withUnsafeMutableBytes { raw throws(SystemCallError) in
                try UnixSocket.receive(fd, into: raw)
            }
            switch received {
            case nil:
                try await IOReactor.shared.waitUntil(.readable, on: fd)
            case 0:
                if buffer.isEmpty { return nil }
                throw ControlFramingError.truncatedLine
            case let count?:
                buffer.append(receiveBuffer[..<count])
            }
        }
    }

    /// Writes all of `bytes`. Throws `SystemCallError` (`EPIPE` when the peer has gone) or
    /// `CancellationError`.
    func write(_ bytes: [UInt8]) async throws {
        try await Self.write(bytes, to: fd)
    }

    /// Writes all of `bytes` to the connected socket `fd` (for a writer that does not own the connection).
    static func write(_ bytes: [UInt8], to fd: Int32) async throws {
        var offset = 0
        while offset < bytes.count {
            let sent = try bytes.withUnsafeBytes { raw throws(SystemCallError) in
                try UnixSocket.send(fd, UnsafeRawBufferPointer(rebasing: raw[offset...]))
            }
            if sent == 0 {
                try await IOReactor.shared.waitUntil(.writable, on: fd)
            }
            offset += sent
        }
    }

    /// Waits until the peer of `fd` either closes the connection (returns `true`) or sends
    /// more bytes (returns `false`, leaving them unread). A peer that only shut down its
    /// sending side (`shutdown(SHUT_WR)`, as `nc -N` does) is still there to read the answer.
    /// Touches no buffer, so it may run beside the task that owns the connection. Throws
    /// `CancellationError` when cancelled.
    static func waitForHangUp(fd: Int32) async throws -> Bool {
        var probe: UInt8 = 0
        while true {
            let peeked: Int?
            do {
                peeked = try withUnsafeMutableBytes(of: &probe) { raw throws(SystemCallError) in
                    try UnixSocket.receive(fd, into: raw, peek: true)
                }
            } catch {
                return true  // ECONNRESET and the like: gone
            }
            switch peeked {
            case nil:
                try await IOReactor.shared.waitUntil(.readable, on: fd)
            case 0:
                // End of input: half-closed or gone. Only a full close raises POLLHUP.
                try await IOReactor.shared.waitUntil(.hangUp, on: fd)
                return true
            default:
                return false
            }
        }
    }
}
