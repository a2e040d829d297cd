import Foundation

/// A JSON value, as a key-value store holds it (SPEC §12).
///
/// What a caller may rely on: `init(parsing:)` accepts exactly one JSON text (RFC 8259,
/// whitespace around it allowed) and nothing else; `text` is its canonical form — compact,
/// object keys sorted by their UTF-8 bytes, numbers as `JSONSerialization` reads them —
/// so two devices holding the same value hold the same bytes, and the bytes a value is
/// counted by (`KeyValueLimits`) are those of `text`. `Codable` reads and writes the value
/// itself (not a string holding it): `{"value": {"a": 1}}` on the control socket.
public indirect enum JSONValue: Hashable, Sendable, Codable, CustomStringConvertible {
    case string(String)
    case number(Double)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])
    case null

    /// Parses one JSON text; throws `.invalidArguments` saying why it is not one.
    public init(parsing text: String) throws(SyncError) {
        do {
            self = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        } catch {
            throw SyncError(.invalidArguments, "\(text.prefix(60).debugDescription) is not JSON; write a string in quotes (\"dark\"), a number, true or false, an array or an object")
        }
    }

    /// The canonical JSON text of the value (see the type's comment).
    public var text: String {
        var output = ""
        write(to: &output)
        return output
    }

    /// The bytes of `text`: what the limits count.
    public var byteCount: Int { text.utf8.count }

    public var description: String { text }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .number(let value): output += JSONValue.format(value)
        case .string(let value): JSONValue.writeString(value, to: &output)
        case .array(let values):
            output += "["
            for (index, value) in values.enumerated() {
                if index > 0 { output += "," }
                value.write(to: &output)
            }
            output += "]"
        case .object(let values):
            output += "{"
            for (index, key) in values.keys.sorted(by: { $0.bytesPrecede($1) }).enumerated() {
                if index > 0 { output += "," }
                JSONValue.writeString(key, to: &output)
                output += ":"
                values[key]!.write(to: &output)
            }
            output += "}"
        }
    }

    /// An integral number within ±2^53 without a fraction (`3`), any other in Swift's
    /// shortest round-tripping form (`0.1`, `1e+300`).
    private static func format(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) <= 9_007_199_254_740_992 {
            return String(Int64(value))
        }
        return value.isFinite ? "\(value)" : "null"
    }

    private static func writeString(_ value: String, to output: inout String) {
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                output += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let values): try container.encode(values)
        case .object(let values): try container.encode(values)
        }
    }
}
