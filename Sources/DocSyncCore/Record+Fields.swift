extension Record {
    /// A record's fields, listed once. Every encoding of a record follows this list: the
    /// wire JSON (`writeJSON`, `init(json:)`), the compact form (`CompactCoding`) and
    /// `Codable`, so a new field is a case here, its line in `Record.Draft.visit`, its
    /// place in `Record` and the golden fixtures (Tests/DocSyncCoreTests/Fixtures).
    ///
    /// What a caller may rely on:
    /// - a field's `stringValue` is its JSON key (and `openapi.yaml`'s property name);
    /// - `allCases` is in the order of the compact encoding, which never changes (a new
    ///   field goes last, with a new compact format byte);
    /// - `isOptional` fields may be absent: the JSON leaves their key out, the compact form
    ///   writes a presence byte; the others are always there;
    /// - each field's value type decides how it is written (`RecordFieldValue`).
    public enum Field: Int, CaseIterable, CodingKey, Sendable {
        case id, type, changeTag, path, size, modified, mode, contentDigest, asset, symlinkTarget, lastModifiedBy

        /// Whether a record may lack this field.
        public var isOptional: Bool {
            switch self {
            case .changeTag, .contentDigest, .asset, .symlinkTarget: true
            case .id, .type, .path, .size, .modified, .mode, .lastModifiedBy: false
            }
        }

        /// The fields in the order of the compact encoding (`allCases`, built once).
        static let inCompactOrder = allCases
        /// The fields in the order of their JSON keys (the order `JSONEncoder`'s sorted keys give).
        static let inJSONOrder = allCases.sorted { $0.stringValue.utf8.lexicographicallyPrecedes($1.stringValue.utf8) }
        /// Each field's key as UTF-8, by `rawValue`.
        static let keyBytes: [[UInt8]] = allCases.map { Array($0.stringValue.utf8) }
    }

    /// A record being written or read: every field may be missing. Encoders fill one from a
    /// record (`init(_:)`), decoders field by field (`visit`), then `record()` checks that
    /// every field that is not optional is there.
    struct Draft {
        var id: RecordID?
        var type: RecordType?
        var changeTag: ChangeTag?
        var path: RelativePath?
        var size: Int64?
        var modified: Timestamp?
        var mode: UInt32?
        var contentDigest: SHA256Digest?
        var asset: AssetReference?
        var symlinkTarget: String?
        var lastModifiedBy: String?

        init() {}

        init(_ record: Record) {
            id = record.id
            type = record.type
            changeTag = record.changeTag
            path = record.path
            size = record.size
            modified = record.modified
            mode = record.mode
            contentDigest = record.contentDigest
            asset = record.asset
            symlinkTarget = record.symlinkTarget
            lastModifiedBy = record.lastModifiedBy
        }

        /// Hands `visitor` the storage of `field`, typed by the field's value type.
        @inline(__always)
        mutating func visit<Visitor: RecordFieldVisitor>(_ field: Field, with visitor: inout Visitor) throws(Visitor.Failure) {
            switch field {
            case .id: try visitor.visit(field, &id)
            case .type: try visitor.visit(field, &type)
            case .changeTag: try visitor.visit(field, &changeTag)
            case .path: try visitor.visit(field, &path)
            case .size: try visitor.visit(field, &size)
            case .modified: try visitor.visit(field, &modified)
            case .mode: try visitor.visit(field, &mode)
            case .contentDigest: try visitor.visit(field, &contentDigest)
            case .asset: try visitor.visit(field, &asset)
            case .symlinkTarget: try visitor.visit(field, &symlinkTarget)
            case .lastModifiedBy: try visitor.visit(field, &lastModifiedBy)
            }
        }

        /// The record, or the first field it needs and lacks.
        func record() throws(MissingField) -> Record {
            guard let id else { throw MissingField(field: .id) }
            guard let type else { throw MissingField(field: .type) }
            guard let path else { throw MissingField(field: .path) }
            guard let size else { throw MissingField(field: .size) }
            guard let modified else { throw MissingField(field: .modified) }
            guard let mode else { throw MissingField(field: .mode) }
            guard let lastModifiedBy else { throw MissingField(field: .lastModifiedBy) }
            return Record(id: id, type: type, changeTag: changeTag, path: path, size: size, modified: modified, mode: mode,
                          contentDigest: contentDigest, asset: asset, symlinkTarget: symlinkTarget, lastModifiedBy: lastModifiedBy)
        }
    }

    /// A field that is not optional was missing from what was read.
    struct MissingField: Error, CustomStringConvertible {
        let field: Field
        var description: String { "the record has no \(field.stringValue)" }
    }
}

/// What a codec does with each field of `Record.Draft`: reads it into the storage, or
/// writes what the storage holds. The value's type says how (`RecordFieldValue`).
protocol RecordFieldVisitor {
    associatedtype Failure: Error
    mutating func visit<Value: RecordFieldValue>(_ field: Record.Field, _ value: inout Value?) throws(Failure)
}

/// The type of a record field's value, with its form in each encoding.
protocol RecordFieldValue: Codable, Sendable {
    /// The value's wire JSON.
    func writeJSON(to writer: inout WireJSONWriter)
    /// Reads what `writeJSON` wrote; throws `Unexpected` for anything else, an invalid value included.
    static func readJSON(_ reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) -> Self
    /// The value's compact form.
    func writeCompact(to writer: inout CompactWriter)
    /// Reads what `writeCompact` wrote; throws `CompactCodingError`, or `SyncError` for an invalid name or path.
    static func readCompact(_ reader: inout CompactReader) throws -> Self
}
