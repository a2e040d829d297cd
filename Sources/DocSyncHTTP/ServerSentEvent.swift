import DocSyncCore
import DocSyncStorage
import Foundation

/// One event of the notification stream (`GET /v1/notifications`, `text/event-stream`).
///
/// The server first sends `zones`, naming every zone the user has (so a client that
/// reconnects fetches them once and misses nothing), then one `change` per change, each
/// with a `ChangeNotification` as JSON `data`, and a comment line (`: heartbeat`) every
/// ~15 s so that both sides notice a dead connection.
public struct ServerSentEvent: Hashable, Sendable {
    /// The event name: `zones` or `change`.
    public var name: String
    /// The data lines joined by newlines.
    public var data: String

    public init(name: String, data: String) {
        self.name = name
        self.data = data
    }

    /// The event that names every zone, sent first on each connection.
    public static let zonesEvent = "zones"
    /// The event that names the zones of one change.
    public static let changeEvent = "change"
    /// The comment line the server sends to keep an idle stream alive.
    public static let heartbeat = ": heartbeat\n\n"
    /// How often the server sends `heartbeat`.
    public static let heartbeatInterval: Duration = .seconds(15)

    /// An event carrying `notification`.
    public init(name: String, notification: ChangeNotification) {
        let json = (try? WireCoding.encoder.encode(notification)).map { String(decoding: $0, as: UTF8.self) } ?? "{\"zones\":[]}"
        self.init(name: name, data: json)
    }

    /// The event as it is written on the stream, ending with its blank line.
    public var encoded: String {
        var text = "event: \(name)\n"
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
        return text + "\n"
    }

    /// The notification in `data`; throws `internalError` when it is not one.
    public func notification() throws(SyncError) -> ChangeNotification {
        do {
            return try WireCoding.decoder.decode(ChangeNotification.self, from: Data(data.utf8))
        } catch {
            throw SyncError(.internalError, "the server sent a \(name) event whose data is not a notification: \(data.prefix(120))")
        }
    }
}

/// Reads `ServerSentEvent`s out of the bytes of a stream as they arrive, in any pieces.
///
/// Follows the event-stream format: lines end with LF, CRLF or CR; `event:` and `data:`
/// fields (one optional space after the colon); lines starting with `:` are comments; a
/// blank line dispatches the event (one without data is dropped).
public struct ServerSentEventParser: Sendable {
    private var pending: [UInt8] = []
    private var name = ""
    private var dataLines: [String] = []
    private var lastWasCR = false

    public init() {}

    /// Feeds the next bytes and returns the events they completed, in order.
    public mutating func consume(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n"), lastWasCR {
                lastWasCR = false
                continue
            }
            lastWasCR = byte == UInt8(ascii: "\r")
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                if let event = endLine() { events.append(event) }
            } else {
                pending.append(byte)
            }
        }
        return events
    }

    private mutating func endLine() -> ServerSentEvent? {
        let line = String(decoding: pending, as: UTF8.self)
        pending.removeAll(keepingCapacity: true)
        if line.isEmpty {
            defer { name = ""; dataLines = [] }
            guard !dataLines.isEmpty else { return nil }
            return ServerSentEvent(name: name.isEmpty ? "message" : name, data: dataLines.joined(separator: "\n"))
        }
        if line.hasPrefix(":") { return nil }
        let field: Substring, value: Substring
        if let colon = line.firstIndex(of: ":") {
            field = line[..<colon]
            let rest = line[line.index(after: colon)...]
            value = rest.hasPrefix(" ") ? rest.dropFirst() : rest
        } else {
            field = line[...]
            value = ""
        }
        switch field {
        case "event": name = String(value)
        case "data": dataLines.append(String(value))
        default: break
        }
        return nil
    }
}
