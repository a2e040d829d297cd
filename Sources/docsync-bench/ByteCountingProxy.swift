import Foundation
import Synchronization

/// A TCP relay on a free loopback port that forwards every connection to `upstream` and
/// counts the bytes that cross it in each direction: what a daemon really puts on the wire
/// (HTTP headers, bodies, the notification stream), whatever the code believes it sends.
///
/// Each connection is served by two threads of its own (one per direction); the relay lives
/// until `stop()`.
final class ByteCountingProxy: @unchecked Sendable {
    /// Bytes from the client to the upstream server, and back.
    let sent = Atomic<Int>(0)
    let received = Atomic<Int>(0)
    let port: UInt16
    private let listener: Int32
    private let upstreamPort: UInt16
    private let stopped = Atomic<Bool>(false)

    init(upstreamPort: UInt16) throws {
        self.upstreamPort = upstreamPort
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw BenchError("proxy: socket() failed: errno \(errno)") }
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 64) == 0 else { throw BenchError("proxy: bind/listen failed: errno \(errno)") }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: actual.sin_port)
        self.listener = listener
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// The counters, as (sent, received), at this moment.
    var totals: (sent: Int, received: Int) { (sent.load(ordering: .relaxed), received.load(ordering: .relaxed)) }

    func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func acceptLoop() {
        while !stopped.load(ordering: .relaxed) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: upstreamPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(client)
                close(server)
                continue
            }
            var one: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            setsockopt(server, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let pair = SocketPair(client: client, server: server)
            Thread.detachNewThread { [self] in relay(from: client, to: server, counter: sent); pair.finishOne() }
            Thread.detachNewThread { [self] in relay(from: server, to: client, counter: received); pair.finishOne() }
        }
    }

    /// Copies until either side closes, then shuts both down (the pair closes them).
    private func relay(from source: Int32, to destination: Int32, counter: borrowing Atomic<Int>) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        loop: while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            counter.add(count, ordering: .relaxed)
            var offset = 0
            while offset < count {
                let written = buffer.withUnsafeBytes { send(destination, $0.baseAddress! + offset, count - offset, Int32(MSG_NOSIGNAL)) }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { break loop }
                offset += written
            }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
    }
}

/// The two sockets of one relayed connection, closed once both directions have ended (so
/// neither thread ever uses a descriptor number the other has released).
private final class SocketPair: Sendable {
    let client: Int32
    let server: Int32
    private let finished = Atomic<Int>(0)

    init(client: Int32, server: Int32) {
        self.client = client
        self.server = server
    }

    func finishOne() {
        guard finished.add(1, ordering: .acquiringAndReleasing).newValue == 2 else { return }
        close(client)
        close(server)
    }
}
