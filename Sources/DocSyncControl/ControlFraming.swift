import Foundation

/// The wire format of the control socket: one JSON value per line.
///
/// **The protocol** (what `docs-status` and any other client may rely on):
///
/// - The transport is a Unix stream socket (`ControlSocketLocation`), mode 0600.
/// - A *frame* is one JSON value encoded as UTF-8 on a single line, terminated by `\n`
///   (0x0A). JSON escapes newlines inside strings, so a frame never contains a raw newline.
///   A frame may be at most `maximumLineLength` bytes, newline excluded. Empty lines are
///   ignored.
/// - The client sends one `ControlRequest` frame, e.g. `{"status":{}}` or
///   `{"wait":{"timeoutSeconds":30}}`. The server answers with zero or more non-final
///   `ControlResponse` frames followed by exactly one final one (`ControlResponse.isFinal`);
///   most calls are one line out and one line back. Streaming calls (`query --watch`, a
///   key-value store's `keyValueWatch`) send their updates as non-final frames
///   (`{"changes":…}`; `{"keyValueWatching":…}` then `{"keyValueChange":…}` lines): a
///   client reads lines until it receives a final response, or hangs up to stop.
/// - After the final response the connection may carry the next request; requests on one
///   connection are answered in order, one at a time.
/// - A line that is not a valid request is answered with `.failure(code: "badRequest", …)`;
///   a request naming a call the daemon does not know with `.failure(code: "unknownRequest", …)`;
///   the connection stays usable after both. A line longer than `maximumLineLength` is
///   answered with `badRequest` and the connection is closed.
/// - A client that closes the connection before the final response has gone away: the
///   server abandons (cancels) the call. Shutting down only the sending side after the last
///   request (`shutdown(SHUT_WR)`) is fine: the answer still comes.
/// - Dates are ISO 8601 strings with fractional seconds (`2026-11-22T10:15:00.250Z`); object
///   keys are sorted.
public enum ControlFraming {
    /// The longest frame either side accepts, newline excluded: 16 MiB.
    public static let maximumLineLength = 16 * 1024 * 1024

    /// The coder settings of the protocol (sorted keys, ISO 8601 dates), also used for
    /// `docs-status --json`.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(fractionalISO8601))
        }
        return encoder
    }

    /// Reads what `makeEncoder()` writes; dates with or without fractional seconds.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            if let date = try? fractionalISO8601.parse(text) { return date }
            if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(text.debugDescription) is not an ISO 8601 date")
        }
        return decoder
    }

    /// One frame: `value` as single-line JSON followed by `\n`.
    /// Throws `.encodingFailed` if the value cannot be encoded, `.lineTooLong` if it is too large.
    public static func frame(_ value: some Encodable) throws(ControlFramingError) -> [UInt8] {
        try frame(value, limit: maximumLineLength)
    }

    static func frame(_ value: some Encodable, limit: Int) throws(ControlFramingError) -> [UInt8] {
        var bytes: [UInt8]
        do {
            bytes = Array(try makeEncoder().encode(value))
        } catch {
            throw .encodingFailed(String(describing: error))
        }
        guard bytes.count <= limit else { throw .lineTooLong(limit: limit) }
        bytes.append(newline)
        return bytes
    }

    /// Decodes one request line (without its newline), telling a malformed line
    /// (`.malformed`) from a well-formed request for a call this side does not know
    /// (`.unknownRequest`).
    public static func decodeRequest(_ line: some Collection<UInt8>) throws(ControlFramingError) -> ControlRequest {
        let data = Data(line)
        do {
            return try makeDecoder().decode(ControlRequest.self, from: data)
        } catch {
            // A JSON object with exactly one key is a call; if that key is not a case we know,
            // the call is unknown rather than malformed.
            if case DecodingError.typeMismatch(_, let context) = error, context.codingPath.isEmpty,
               let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
               object.count == 1, let name = object.keys.first {
                throw .unknownRequest(name)
            }
            throw .malformed(describe(error))
        }
    }

    /// Decodes one response line (without its newline).
    public static func decodeResponse(_ line: some Collection<UInt8>) throws(ControlFramingError) -> ControlResponse {
        do {
            return try makeDecoder().decode(ControlResponse.self, from: Data(line))
        } catch {
            throw .malformed(describe(error))
        }
    }

    static let newline = UInt8(ascii: "\n")

    private static let fractionalISO8601 = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// A one-line account of a decoding error, naming the field at fault.
    private static func describe(_ error: any Error) -> String {
        func at(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return path.isEmpty ? "" : " at \(path.joined(separator: "."))"
        }
        switch error {
        case DecodingError.dataCorrupted(let context):
            if context.codingPath.isEmpty { return "not valid JSON" }
            return "\(context.debugDescription)\(at(context))"
        case DecodingError.keyNotFound(let key, let context):
            return "missing field \(key.stringValue.debugDescription)\(at(context))"
        case DecodingError.typeMismatch(let type, let context):
            return "expected \(type)\(at(context)): \(context.debugDescription)"
        case DecodingError.valueNotFound(let type, let context):
            return "missing \(type) value\(at(context))"
        default:
            return String(describing: error)
        }
    }
}
