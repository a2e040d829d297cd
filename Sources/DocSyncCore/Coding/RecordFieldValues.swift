import Foundation

// How each type of a record's field values is written in the wire JSON and in the compact
// form (`RecordFieldValue`): one place per type, shared by every field of that type.

extension RecordID: RecordFieldValue {
    // JSON: its own object (`RecordID.writeJSON`). Compact: the zone's name, then the record name.
    static func readJSON(_ reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) -> RecordID { try RecordID(json: &reader) }

    func writeCompact(to writer: inout CompactWriter) {
        writer.string(zone.name)
        writer.string(recordName)
    }

    static func readCompact(_ reader: inout CompactReader) throws -> RecordID {
        let zone = try ZoneID(validating: try reader.string())
        return try RecordID(zone: zone, validating: try reader.string())
    }
}

extension RecordType: RecordFieldValue {
    // JSON: the raw value. Compact: one byte.
    func writeJSON(to writer: inout WireJSONWriter) { writer.string(rawValue) }

    static func readJSON(_ reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) -> RecordType {
        guard let type = RecordType(rawValue: try reader.string()) else { throw reader.unexpected() }
        return type
    }

    func writeCompact(to writer: inout CompactWriter) {
        switch self {
        case .document: writer.byte(0)
        case .folder: writer.byte(1)
        case .symlink: writer.byte(2)
        case .value: writer.byte(3)
        case .sealed: writer.byte(4)
        }
    }

    static func readCompact(_ reader: inout CompactReader) throws -> RecordType {
        switch try reader.byte() {
        case 0: .document
        case 1: .folder
        case 2: .symlink
        case 3: .value
        case 4: .sealed
        case let code: throw CompactCodingError("unknown record type \(code)")
        }
    }
}

extension ChangeTag: RecordFieldValue {
    func writeJSON(to writer: inout WireJSONWriter) { writer.string(rawValue) }
    static func readJSON(_ reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) -> ChangeTag { ChangeTag(try reader.string()) }
    func writeCompact(to writer: inout CompactWriter) { writer.string(rawValue) }
    static func readCompact(_ reader: inout CompactReader) throws -> ChangeTag { ChangeTag(try reader.string()) }
}

extension RelativePath: RecordFieldValue {
    // The path's bytes, as they are (no normalization); read back only when valid.
    func writeJSON(to writer: inout WireJSONWriter) { writer.string(string) }

    static func readJSON(_ reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) -> RelativePath {
        guard let path = try? RelativePath(validating: try reader.string()) else { throw reader.unexpected() }
        return path
    }

    func writeCompact(to writer: inout CompactWriter) { writer.string(string) }
    static func readCompact(_ reader: inout CompactReader) throws -> RelativePath { try RelativePath(validating: try reader.string()) }
}

extension Int64: RecordFieldValue {
    // JSON: a plain integer. Compact: 8 bytes, little-endian.
    func writeJSON(to writer: inout WireJSONWriter) { writer.integer(self) }
    static func readJSON(_ reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) -> Int64 { try reader.integer() }
    func writeCompact(to writer: inout CompactWriter) { writer.fixed(self) }
    static func readCompact(_ reader: inout CompactReader) throws -> Int64 { try reader.fixed() }
}

extension Timestamp: RecordFieldValue {
    // Nanoseconds since 1970, as an `Int64` is written.
    func writeJSON(to writer: inout WireJSONWriter) { writer.integer(nanosecondsSince1970) }

    static func readJSON(_ reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) -> Timestamp {
        Timestamp(nanosecondsSince1970: try reader.integer())
    }

    func writeCompact(to writer: inout CompactWriter) { writer.fixed(nanosecondsSince1970) }
    static func readCompact(_ reader: inout CompactReader) throws -> Timestamp { Timestamp(nanosecondsSince1970: try reader.fixed()) }
}

extension UInt32: RecordFieldValue {
    // JSON: a plain integer. Compact: a varint.
    func writeJSON(to writer: inout WireJSONWriter) { writer.integer(Int64(self)) }

    static func readJSON(_ reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) -> UInt32 {
        guard let value = UInt32(exactly: try reader.integer()) else { throw reader.unexpected() }
        return value
    }

    func writeCompact(to writer: inout CompactWriter) { writer.varint(UInt64(self)) }
    static func readCompact(_ reader: inout CompactReader) throws -> UInt32 { UInt32(try reader.count(atMost: Int(UInt32.max))) }
}

extension SHA256Digest: RecordFieldValue {
    // JSON: 64 lowercase hex characters. Compact: the 32 bytes.
    static func readJSON(_ reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) -> SHA256Digest { try reader.digest() }
    func writeCompact(to writer: inout CompactWriter) { writer.digest(self) }
    static func readCompact(_ reader: inout CompactReader) throws -> SHA256Digest { try reader.digest() }
}

extension AssetReference: RecordFieldValue {
    // JSON: its own object (`AssetReference.writeJSON`). Compact: `CompactCoding`'s reference.
    static func readJSON(_ reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) -> AssetReference {
        try AssetReference(json: &reader)
    }

    func writeCompact(to writer: inout CompactWriter) { CompactCoding.write(self, into: &writer) }
    static func readCompact(_ reader: inout CompactReader) throws -> AssetReference { try CompactCoding.readReference(&reader) }
}

extension String: RecordFieldValue {
    // JSON: quoted and escaped as `JSONEncoder` writes it. Compact: length-prefixed UTF-8.
    static func readJSON(_ reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) -> String { try reader.string() }
    func writeCompact(to writer: inout CompactWriter) { writer.string(self) }
    static func readCompact(_ reader: inout CompactReader) throws -> String { try reader.string() }
}

extension SealedBlob: RecordFieldValue {
    // JSON: base64 (as `JSONEncoder` writes `Data`). Compact: a varint length and the bytes.
    func writeJSON(to writer: inout WireJSONWriter) { writer.string(bytes.base64EncodedString()) }

    static func readJSON(_ reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) -> SealedBlob {
        guard let bytes = Data(base64Encoded: try reader.string()) else { throw reader.unexpected() }
        return SealedBlob(bytes)
    }

    func writeCompact(to writer: inout CompactWriter) { writer.blob(bytes) }
    static func readCompact(_ reader: inout CompactReader) throws -> SealedBlob { SealedBlob(try reader.blob()) }
}
