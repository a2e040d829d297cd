// The JSON of the scalar values that appear in lists on the wire (see `WireJSONCodable`).

/// A digest's JSON: its 64 lowercase hex characters, as its `Codable` conformance has it.
extension SHA256Digest: WireJSONCodable {
    public func writeJSON(to writer: inout WireJSONWriter) { writer.digest(self) }

    public init(json reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) { self = try reader.digest() }
}

/// A string's JSON: the string, quoted and escaped as `JSONEncoder` writes it.
extension String: WireJSONCodable {
    public func writeJSON(to writer: inout WireJSONWriter) { writer.string(self) }

    public init(json reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) { self = try reader.string() }
}
