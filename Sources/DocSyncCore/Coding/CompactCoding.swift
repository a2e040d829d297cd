import Foundation

/// A compact binary form of records and asset references, for storage that is written and
/// read many thousands of times per sync (the local index, the embedded backend). It is
/// several times cheaper to produce and parse than the JSON of `WireCoding`, which stays the
/// form records take on the wire.
///
/// Every encoding starts with a format byte, which never begins JSON (`{`): `0x01` for a
/// record without a `value` or a `lastEditorName` (every field up to `lastModifiedBy`: what
/// was written before Values existed, unchanged), `0x02` for a record with a value and no
/// editor (every field up to `value`), `0x03` for a record with an editor and no sealed blob
/// (every field up to `lastEditorName`), `0x04` for a sealed record (every field). Rows
/// written as `WireCoding` JSON before this form existed are told apart and rewritten by the
/// migrations of the index and the stores (`recordFromLegacyJSON`); the decoders read the
/// compact form only. Decoding validates names and paths exactly as JSON decoding does.
/// The bytes of each encoding are pinned by Tests/DocSyncCoreTests/Fixtures.
public enum CompactCoding {
    static let version: UInt8 = 0x01
    /// The format of a record with a `value` (a key-value store's Value) and no editor.
    static let valueVersion: UInt8 = 0x02
    /// The format of a record with a `lastEditorName` (saved through `docsync-server`).
    static let editorVersion: UInt8 = 0x03
    /// The format of a record with a `sealed` blob (an encrypted folder's).
    static let sealedVersion: UInt8 = 0x04

    /// The fields a record of `format` holds, in order: every field up to `lastModifiedBy`, and
    /// one more for each format after the first (`value`, `lastEditorName`, `sealed`: each
    /// came with its format). `format` is one `expectVersion` accepted.
    private static func fields(ofFormat format: UInt8) -> ArraySlice<Record.Field> {
        Record.Field.inCompactOrder.prefix(Record.Field.lastModifiedBy.rawValue + 1 + Int(format - version))
    }

    public static func encode(_ record: Record) -> Data {
        var fields = CompactFieldWriter(writer: CompactWriter(capacity: 160 + (record.asset?.entries.count ?? 0) * 36 + (record.value?.utf8.count ?? 0)
            + (record.lastEditorName?.utf8.count ?? 0) + (record.sealed?.bytes.count ?? 0)))
        let format = record.sealed != nil ? sealedVersion
            : record.lastEditorName != nil ? editorVersion : record.value != nil ? valueVersion : version
        fields.writer.byte(format)
        for field in self.fields(ofFormat: format) { record.write(field, with: &fields) }
        return Data(fields.writer.bytes)
    }

    public static func encode(_ reference: AssetReference) -> Data {
        var writer = CompactWriter(capacity: 48 + reference.entries.count * 36)
        writer.byte(version)
        write(reference, into: &writer)
        return Data(writer.bytes)
    }

    /// Decodes a record stored by `encode`; throws `CompactCodingError` (or `SyncError` for
    /// an invalid name or path) for anything else.
    public static func decodeRecord(_ data: Data) throws -> Record {
        var fields = CompactFieldReader(reader: CompactReader(data))
        let format = try expectVersion(&fields.reader, allowing: [valueVersion, editorVersion, sealedVersion])
        var draft = Record.Draft()
        for field in self.fields(ofFormat: format) { try draft.visit(field, with: &fields) }
        guard fields.reader.isAtEnd else { throw CompactCodingError("bytes left after a record") }
        return try draft.record()
    }

    /// Decodes an asset reference stored by `encode`; throws `CompactCodingError` for anything else.
    public static func decodeAssetReference(_ data: Data) throws -> AssetReference {
        var reader = CompactReader(data)
        try expectVersion(&reader)
        let reference = try readReference(&reader)
        guard reader.isAtEnd else { throw CompactCodingError("bytes left after an asset reference") }
        return reference
    }

    /// Reads the format byte: `version`, or one of `allowing`; returns it.
    @discardableResult
    private static func expectVersion(_ reader: inout CompactReader, allowing others: [UInt8] = []) throws(CompactCodingError) -> UInt8 {
        let format = try reader.byte()
        if format == UInt8(ascii: "{") {
            throw CompactCodingError("a row kept as JSON that the migration to the compact form could not read (damaged)")
        }
        guard format == version || others.contains(format) else { throw CompactCodingError("unknown format \(format)") }
        return format
    }

    // MARK: asset references

    static func write(_ reference: AssetReference, into writer: inout CompactWriter) {
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

    static func readReference(_ reader: inout CompactReader) throws(CompactCodingError) -> AssetReference {
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
}

/// Writes each field in turn: a presence byte before an optional one, then the value.
struct CompactFieldWriter: RecordFieldWriter {
    typealias Failure = Never
    var writer: CompactWriter

    mutating func write<Value: RecordFieldValue>(_ field: Record.Field, _ value: Value?) {
        if field.isOptional {
            writer.optional(value) { $1.writeCompact(to: &$0) }
        } else {
            value!.writeCompact(to: &writer)
        }
    }
}

/// Reads each field in turn, as `CompactFieldWriter` wrote it.
struct CompactFieldReader: RecordFieldVisitor {
    typealias Failure = any Error
    var reader: CompactReader

    mutating func visit<Value: RecordFieldValue>(_ field: Record.Field, _ value: inout Value?) throws(any Error) {
        if field.isOptional, try !reader.presence() {
            value = nil
        } else {
            value = try Value.readCompact(&reader)
        }
    }
}
