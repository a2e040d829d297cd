import Foundation

/// A type that writes and reads its own JSON, the same JSON its `Codable` conformance
/// gives through `WireCoding` (byte for byte when written), only much faster: the records
/// and pages that cross the wire by the thousand.
///
/// `init(json:)` may refuse anything it was not built for by throwing
/// `WireJSONReader.Unexpected`; `WireCoding.decode` then hands the text to `JSONDecoder`.
/// It must never accept a text `Decodable` would refuse, or read one differently.
public protocol WireJSONCodable: Codable {
    func writeJSON(to writer: inout WireJSONWriter)
    init(json reader: inout WireJSONReader) throws(WireJSONReader.Unexpected)
}

extension WireJSONCodable {
    /// The value read from the whole of `data` by `init(json:)`, or `nil` when it does not
    /// read it (`WireCoding.decode` then asks `JSONDecoder`).
    public static func fromWireJSON(_ data: Data) -> Self? {
        data.withUnsafeBytes { bytes in
            var reader = WireJSONReader(bytes)
            guard let value = try? Self(json: &reader), (try? reader.end()) != nil else { return nil }
            return value
        }
    }
}

extension WireCoding {
    /// `value` as JSON, written by `WireJSONWriter` when it is `WireJSONCodable`, by
    /// `encoder` otherwise; the bytes are the same either way.
    public static func encode(_ value: some Encodable) throws -> Data {
        if let value = value as? any WireJSONCodable {
            var writer = WireJSONWriter()
            value.writeJSON(to: &writer)
            return Data(writer.bytes)
        }
        return try encoder.encode(value)
    }

    /// `data` read as `T`: by `WireJSONReader` when `T` is `WireJSONCodable` and the text is
    /// in the shape it reads, by `decoder` otherwise (and for every error).
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        if let fast = T.self as? any WireJSONCodable.Type, let value = fast.fromWireJSON(data) {
            return value as! T
        }
        return try decoder.decode(T.self, from: data)
    }
}

/// Which fields of an object have been read, so that a repeated key is refused.
public struct WireJSONFields {
    private var seen: UInt64 = 0

    public init() {}

    /// Marks field `index` (0–63) as read; throws when it was already.
    public mutating func insert(_ index: Int, _ reader: WireJSONReader) throws(WireJSONReader.Unexpected) {
        let bit: UInt64 = 1 << UInt64(index)
        guard seen & bit == 0 else { throw reader.unexpected() }
        seen |= bit
    }
}

extension WireJSONWriter {
    /// Each element of `values`, as a JSON array.
    public mutating func array<Element: WireJSONCodable>(_ values: [Element]) {
        beginArray()
        for value in values {
            element()
            value.writeJSON(to: &self)
        }
        endArray()
    }

    public mutating func token(_ token: ChangeToken) {
        string(token.opaqueValue.base64EncodedString())
    }
}

extension WireJSONReader {
    /// A JSON array whose elements are each read by `Element(json:)`.
    public mutating func array<Element: WireJSONCodable>(of type: Element.Type) throws(WireJSONReader.Unexpected) -> [Element] {
        var values: [Element] = []
        try beginArray()
        while try nextElement() { values.append(try Element(json: &self)) }
        return values
    }

    public mutating func token() throws(WireJSONReader.Unexpected) -> ChangeToken {
        guard let data = Data(base64Encoded: try string()) else { throw unexpected() }
        return ChangeToken(opaqueValue: data)
    }
}
