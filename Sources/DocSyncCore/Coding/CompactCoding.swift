import Foundation

/// A compact binary form of records and asset references, for storage that is written and
/// read many thousands of times per sync (the local index, the embedded backend). It is
/// several times cheaper to produce and parse than the JSON of `WireCoding`, which stays the
/// form records take on the wire.
///
/// Every encoding starts with a format byte (`0x01`), which never begins JSON (`{`), so
/// `decode…` also accepts rows written as `WireCoding` JSON before this form existed.
/// Decoding validates names and paths exactly as JSON decoding does.
public enum CompactCoding {
    static let version: UInt8 = 0x01

    public static func encode(_ record: Record) -> Data {
        var writer = CompactWriter(capacity: 160 + (record.asset?.entries.count ?? 0) * 36)
        writer.byte(version)
        write(record, into: &writer)
        return Data(writer.bytes)
    }

    public static func encode(_ reference: AssetReference) -> Data {
        var writer = CompactWriter(capacity: 48 + reference.entries.count * 36)
        writer.byte(version)
        write(reference, into: &writer)
        return Data(writer.bytes)
    }

    /// Decodes a record stored by `encode` (or as `WireCoding` JSON).
    public static func decodeRecord(_ data: Data) throws -> Record {
        if data.first == UInt8(ascii: "{") { return try WireCoding.decoder.decode(Record.self, from: data) }
        var reader = CompactReader(data)
        try expectVersion(&reader)
        let record = try readRecord(&reader)
        guard reader.isAtEnd else { throw CompactCodingError("bytes left after a record") }
        return record
    }

    /// Decodes an asset reference stored by `encode` (or as `WireCoding` JSON).
    public static func decodeAssetReference(_ data: Data) throws -> AssetReference {
        if data.first == UInt8(ascii: "{") { return try WireCoding.decoder.decode(AssetReference.self, from: data) }
        var reader = CompactReader(data)
        try expectVersion(&reader)
        let reference = try readReference(&reader)
        guard reader.isAtEnd else { throw CompactCodingError("bytes left after an asset reference") }
        return reference
    }

    private static func expectVersion(_ reader: inout CompactReader) throws(CompactCodingError) {
        let format = try reader.byte()
        guard format == version else { throw CompactCodingError("unknown format \(format)") }
    }

    // MARK: fields, in order

    private static func write(_ record: Record, into writer: inout CompactWriter) {
        writer.string(record.id.zone.name)
        writer.string(record.id.recordName)
        writer.byte(typeCode(record.type))
        writer.optional(record.changeTag) { $0.string($1.rawValue) }
        writer.string(record.path.string)
        writer.fixed(record.size)
        writer.fixed(record.modified.nanosecondsSince1970)
        writer.varint(UInt64(record.mode))
        writer.optional(record.contentDigest) { $0.digest($1) }
        writer.optional(record.asset) { write($1, into: &$0) }
        writer.optional(record.symlinkTarget) { $0.string($1) }
        writer.string(record.lastModifiedBy)
    }

    private static func write(_ reference: AssetReference, into writer: inout CompactWriter) {
        writer.varint(UInt64(reference.depth))
        writer.varint(UInt64(reference.chunkCount))
        writer.fixed(reference.size)
        writer.digest(reference.contentDigest)
        writer.varint(UInt64(reference.entries.count))
        for entry in reference.entries {
            writer.digest(entry.digest)
            writer.varint(UInt64(entry.length))
        }
    }

    private static func readRecord(_ reader: inout CompactReader) throws -> Record {
        let zone = try ZoneID(validating: try reader.string())
        let id = try RecordID(zone: zone, validating: try reader.string())
        let type = try recordType(try reader.byte())
        let changeTag = try reader.optional { r throws(CompactCodingError) in ChangeTag(try r.string()) }
        let path = try RelativePath(validating: try reader.string())
        let size = try reader.fixed()
        let modified = Timestamp(nanosecondsSince1970: try reader.fixed())
        let mode = try reader.count(atMost: Int(UInt32.max))
        let contentDigest = try reader.optional { r throws(CompactCodingError) in try r.digest() }
        let asset = try reader.optional { r throws(CompactCodingError) in try readReference(&r) }
        let symlinkTarget = try reader.optional { r throws(CompactCodingError) in try r.string() }
        let device = try reader.string()
        return Record(id: id, type: type, changeTag: changeTag, path: path, size: size, modified: modified, mode: UInt32(mode),
                      contentDigest: contentDigest, asset: asset, symlinkTarget: symlinkTarget, lastModifiedBy: device)
    }

    private static func readReference(_ reader: inout CompactReader) throws(CompactCodingError) -> AssetReference {
        let depth = try reader.count(atMost: 64)
        let chunkCount = try reader.count(atMost: Int.max)
        let size = try reader.fixed()
        let contentDigest = try reader.digest()
        let count = try reader.count(atMost: 1 << 20)
        var entries: [ChunkRef] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let digest = try reader.digest()
            entries.append(ChunkRef(digest: digest, length: try reader.count(atMost: Int(Int32.max))))
        }
        return AssetReference(depth: depth, entries: entries, chunkCount: chunkCount, size: size, contentDigest: contentDigest)
    }

    private static func typeCode(_ type: RecordType) -> UInt8 {
        switch type {
        case .document: 0
        case .folder: 1
        case .symlink: 2
        }
    }

    private static func recordType(_ code: UInt8) throws(CompactCodingError) -> RecordType {
        switch code {
        case 0: .document
        case 1: .folder
        case 2: .symlink
        default: throw CompactCodingError("unknown record type \(code)")
        }
    }
}
