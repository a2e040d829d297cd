import Foundation

/// A loopback HTTP/1.1 server that answers every request with the same status and body,
/// written in pieces of `pieceSize` bytes (one `write` each, with Nagle off), and closes
/// the connection: for testing how a client reads answers a real server would not send.
final class CannedHTTPServer: Sendable {
    let port: Int
    private let listener: Int32

    init(status: Int = 200, contentType: String = "application/octet-stream", body: [UInt8], pieceSize: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, listen(fd, 16) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        let head = Array("HTTP/1.1 \(status) Canned\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8)
        Thread.detachNewThread {
            while true {
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else { return }  // the listener was closed
                var on: Int32 = 1
                setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
                CannedHTTPServer.readRequest(connection)
                CannedHTTPServer.write(head, to: connection)
                var offset = 0
                while offset < body.count {
                    let end = min(offset + pieceSize, body.count)
                    CannedHTTPServer.write(Array(body[offset..<end]), to: connection)
                    offset = end
                }
                shutdown(connection, Int32(SHUT_WR))
                close(connection)
            }
        }
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// Reads a request's head and its Content-Length bytes of body.
    private static func readRequest(_ fd: Int32) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { return }
            received += buffer[0..<count]
            guard let end = received.firstRange(of: Array("\r\n\r\n".utf8)) else { continue }
            let head = String(decoding: received[..<end.lowerBound], as: UTF8.self).lowercased()
            let declared = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            if received.count - end.upperBound >= declared { return }
        }
    }

    private static func write(_ bytes: [UInt8], to fd: Int32) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            offset += count
        }
    }
}
