/// Where the status page listens (`web_listen`, SPEC §15): a loopback address and port, or
/// off. Only loopback is accepted, so the page is never reachable from another machine.
public enum WebListen: Sendable, Hashable, CustomStringConvertible {
    case off
    /// `host` is `127.0.0.1`, `::1` or `localhost`; port 0 takes a free port.
    case loopback(host: String, port: Int)

    /// The default: `127.0.0.1:8385` (Syncthing's page is at 8384).
    public static let standard = WebListen.loopback(host: "127.0.0.1", port: 8385)

    /// Parses `off`, `HOST:PORT` (`127.0.0.1:8385`, `localhost:8385`, `[::1]:8385`). `nil`
    /// for anything else, a host that is not loopback included.
    public init?(parsing text: String) {
        if text == "off" {
            self = .off
            return
        }
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else { return nil }
        let host = switch text[..<colon] {
        case "[::1]": "::1"
        case let name: String(name)
        }
        guard ["127.0.0.1", "::1", "localhost"].contains(host), host != "::1" || text.hasPrefix("[") else { return nil }
        self = .loopback(host: host, port: port)
    }

    public var description: String {
        switch self {
        case .off: "off"
        case .loopback(let host, let port): "\(host.contains(":") ? "[\(host)]" : host):\(port)"
        }
    }
}
