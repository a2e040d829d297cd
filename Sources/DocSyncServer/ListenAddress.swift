/// Where the server listens: `HOST:PORT`, `[IPV6]:PORT`; port 0 picks a free one.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public static let `default` = ListenAddress(host: "127.0.0.1", port: 8787)

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT` or `[IPV6]:PORT`; throws a message saying what to write otherwise.
    public init(parsing text: String) throws(ServerConfigurationError) {
        let host: Substring, portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw ServerConfigurationError("listen address \(text.debugDescription) is not [IPV6]:PORT")
            }
            host = text[text.index(after: text.startIndex) ..< close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else {
                throw ServerConfigurationError("listen address \(text.debugDescription) is not HOST:PORT (for example 127.0.0.1:8787)")
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty else { throw ServerConfigurationError("listen address \(text.debugDescription) has no host") }
        guard let port = Int(portText), (0 ... 65535).contains(port) else {
            throw ServerConfigurationError("listen address \(text.debugDescription) has no port in 0...65535")
        }
        self.init(host: String(host), port: port)
    }

    /// Whether the host is a loopback address (127.0.0.0/8, ::1 or localhost): the only
    /// places plain HTTP is allowed.
    public var isLoopback: Bool {
        if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// The host as it appears in a URL (IPv6 in brackets).
    public var urlHost: String { host.contains(":") ? "[\(host)]" : host }

    public var description: String { "\(urlHost):\(port)" }
}

/// A problem with the server's configuration or flags, in words that say what to change.
public struct ServerConfigurationError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
