extension Record {
    /// A record's fields, listed once. Every encoding of a record follows this list: the
    /// wire JSON (`writeJSON`, `init(json:)`), the compact form (`CompactCoding`) and
    /// `Codable`, so a new field is a case here, its line in `Record.write` and in
    /// `Record.Draft.visit` (exhaustive switches: the compiler points at both), its place in
    /// `Record` and the golden fixtures (Tests/DocSyncCoreTests/Fixtures).
    ///
    /// What a caller may rely on:
    /// - a field's `stringValue` is its JSON key (and `openapi.yaml`'s property name);
    /// - `allCases` is in the order of the compact encoding, which never changes (a new
    ///   field goes last, with a new compact format byte);
    /// - `isOptional` fields may be absent: the JSON leaves their key out, the compact form
    ///   writes a presence byte; the others are always there;
    /// - each field's value type decides how it is written (`RecordFieldValue`).
    public enum Field: Int, CaseIterable, CodingKey, Sendable {
        case id, type, changeTag, path, size, modified, mode, contentDigest, asset, symlinkTarget, lastModifiedBy, value, lastEditorName, sealed

        /// Whether a record may lack this field.
        public var isOptional: Bool {
            switch self {
            case .changeTag, .contentDigest, .asset, .symlinkTarget, .value, .lastEditorName, .sealed: true
            case .id, .type, .path, .size, .modified, .mode, .lastModifiedBy: false
            }
        }

        /// The fields in the order of the compact encoding (`allCases`, built once).
        static let inCompactOrder = allCases
        /// The fields in the order of their JSON keys (the order `JSONEncoder`'s sorted keys give).
        static let inJSONOrder = allCases.sorted { $0.stringValue.utf8.lexicographicallyPrecedes($1.stringValue.utf8) }
        /// Each field's key as UTF-8, by `rawValue`, in memory kept for the life of the process:
        /// the codecs read the keys of every record, and these cost no reference counting.
        /// Written once, when first used, and only read afterwards: safe from any thread.
        nonisolated(unsafe) static let keys: [UnsafeBufferPointer<UInt8>] = allCases.map { field in
            let key = Array(field.stringValue.utf8)
            let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: key.count)
            _ = storage.initialize(from: key)
            return UnsafeBufferPointer(storage)
        }

        /// The field whose key is `key`, or `nil`.
        static func named(_ key: WireJSONReader.Key) -> Field? {
            keys.withUnsafeBufferPointer { keys in
                for index in keys.indices where key.hasBytes(keys[index]) { return Field(rawValue: index) }
                return nil
            }
        }
    }

    /// Hands `writer` the value of `field`: what the encoders walk the list with. The same
    /// list as `Draft.visit` (the decoders'), read from the record without copying it.
    @inline(__always)
    func write<Writer: RecordFieldWriter>(_ field: Field, with writer: inout Writer) throws(Writer.Failure) {
        switch field {
        case .id: try writer.write(field, id)
        case .type: try writer.write(field, type)
        case .changeTag: try writer.write(field, changeTag)
        case .path: try writer.write(field, path)
        case .size: try writer.write(field, size)
        case .modified: try writer.write(field, modified)
        case .mode: try writer.write(field, mode)
        case .contentDigest: try writer.write(field, contentDigest)
        case .asset: try writer.write(field, asset)
        case .symlinkTarget: try writer.write(field, symlinkTarget)
        case .lastModifiedBy: try writer.write(field, lastModifiedBy)
        case .value: try writer.write(field, value)
        case .lastEditorName: try writer.write(field, lastEditorName)
        case .sealed: try writer.write(field, sealed)
        }
    }

    /// A record being read: every field may be missing. Decoders fill it field by field
    /// (`visit`), then `record()` checks that every field that is not optional is there.
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
        var value: String?
        var lastEditorName: String?
        var sealed: SealedBlob?

        init() {}

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
            case .value: try visitor.visit(field, &value)
            case .lastEditorName: try visitor.visit(field, &lastEditorName)
            case .sealed: try visitor.visit(field, &sealed)
            }
        }

        /// The record, or the first field it needs and lacks.
        consuming func record() throws(MissingField) -> Record {
            guard let id else { throw MissingField(field: .id) }
            guard let type else { throw MissingField(field: .type) }
            guard let path else { throw MissingField(field: .path) }
            guard let size else { throw MissingField(field: .size) }
            guard let modified else { throw MissingField(field: .modified) }
            guard let mode else { throw MissingField(field: .mode) }
            guard let lastModifiedBy else { throw MissingField(field: .lastModifiedBy) }
            return Record(id: id, type: type, changeTag: changeTag, path: path, size: size, modified: modified, mode: mode,
                          contentDigest: contentDigest, asset: asset, symlinkTarget: symlinkTarget, lastModifiedBy: lastModifiedBy, value: value, lastEditorName: lastEditorName, sealed: sealed)
        }
    }

    /// A field that is not optional was missing from what was read.
    struct MissingField: Error, CustomStringConvertible {
        let field: Field
        var description: String { "the record has no \(field.stringValue)" }
    }
}

/// What a decoder does with each field of `Record.Draft`: reads its value into the storage.
/// The value's type says how (`RecordFieldValue`).
protocol RecordFieldVisitor {
    associatedtype Failure: Error
    mutating func visit<Value: RecordFieldValue>(_ field: Record.Field, _ value: inout Value?) throws(Failure)
}

/// What an encoder does with each field of a record (`Record.write`): writes its value,
/// `nil` for an optional field the record lacks. The value's type says how (`RecordFieldValue`).
protocol RecordFieldWriter {
    associatedtype Failure: Error
    mutating func write<Value: RecordFieldValue>(_ field: Record.Field, _ value: Value?) throws(Failure)
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
