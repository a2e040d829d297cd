/// The JSON of records, written and read by hand (see `WireJSONCodable`) field by field
/// as `Record.Field` lists them: keys in sorted order, an absent optional field left out.
extension Record: WireJSONCodable {
    public func writeJSON(to writer: inout WireJSONWriter) {
        var fields = WireJSONFieldWriter()
        swap(&fields.writer, &writer)
        fields.writer.beginObject()
        for field in Field.inJSONOrder { write(field, with: &fields) }
        fields.writer.endObject()
        swap(&fields.writer, &writer)
    }

    public init(json reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) {
        var draft = Draft()
        var seen = WireJSONFields()
        try reader.beginObject()
        while let key = try reader.nextKey() {
            guard let field = Field.named(key) else { throw reader.unexpected() }
            try seen.insert(field.rawValue, reader)
            var fields = WireJSONFieldReader(reader: reader)
            try draft.visit(field, with: &fields)
            reader = fields.reader
        }
        guard let record = try? draft.record() else { throw reader.unexpected() }
        self = record
    }
}

/// Writes each field present as its key and its value.
struct WireJSONFieldWriter: RecordFieldWriter {
    typealias Failure = Never
    var writer = WireJSONWriter(capacity: 0)

    mutating func write<Value: RecordFieldValue>(_ field: Record.Field, _ value: Value?) {
        guard let value else { return }
        writer.key(utf8: Record.Field.keys[field.rawValue])
        value.writeJSON(to: &writer)
    }
}

/// Reads the value of the field whose key was just read; `null` is an absent optional field.
struct WireJSONFieldReader: RecordFieldVisitor {
    typealias Failure = WireJSONReader.Unexpected
    var reader: WireJSONReader

    mutating func visit<Value: RecordFieldValue>(_ field: Record.Field, _ value: inout Value?) throws(WireJSONReader.Unexpected) {
        if field.isOptional, reader.null() {
            value = nil
        } else {
            value = try Value.readJSON(&reader)
        }
    }
}

extension RecordID: WireJSONCodable {
    public func writeJSON(to writer: inout WireJSONWriter) {
        writer.beginObject()
        writer.key("recordName"); writer.string(recordName)
        writer.key("zone"); writer.string(zone.name)
        writer.endObject()
    }

    public init(json reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) {
        var recordName: String?, zone: String?
        var fields = WireJSONFields()
        try reader.beginObject()
        while let key = try reader.nextKey() {
            switch key {
            case "recordName": try fields.insert(0, reader); recordName = try reader.string()
            case "zone": try fields.insert(1, reader); zone = try reader.string()
            default: throw reader.unexpected()
            }
        }
        guard let recordName, let zone, let zoneID = try? ZoneID(validating: zone),
              let id = try? RecordID(zone: zoneID, validating: recordName) else { throw reader.unexpected() }
        self = id
    }
}

extension AssetReference: WireJSONCodable {
    public func writeJSON(to writer: inout WireJSONWriter) {
        writer.beginObject()
        writer.key("chunkCount"); writer.integer(chunkCount)
        writer.key("contentDigest"); writer.digest(contentDigest)
        writer.key("depth"); writer.integer(depth)
        writer.key("entries"); writer.array(entries)
        writer.key("size"); writer.integer(size)
        writer.endObject()
    }

    public init(json reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) {
        var chunkCount: Int64?, contentDigest: SHA256Digest?, depth: Int64?, entries: [ChunkRef]?, size: Int64?
        var fields = WireJSONFields()
        try reader.beginObject()
        while let key = try reader.nextKey() {
            switch key {
            case "chunkCount": try fields.insert(0, reader); chunkCount = try reader.integer()
            case "contentDigest": try fields.insert(1, reader); contentDigest = try reader.digest()
            case "depth": try fields.insert(2, reader); depth = try reader.integer()
            case "entries": try fields.insert(3, reader); entries = try reader.array(of: ChunkRef.self)
            case "size": try fields.insert(4, reader); size = try reader.integer()
            default: throw reader.unexpected()
            }
        }
        guard let chunkCount, let contentDigest, let depth, let entries, let size else { throw reader.unexpected() }
        self.init(depth: Int(depth), entries: entries, chunkCount: Int(chunkCount), size: size, contentDigest: contentDigest)
    }
}

extension ChunkRef: WireJSONCodable {
    public func writeJSON(to writer: inout WireJSONWriter) {
        writer.beginObject()
        writer.key("digest"); writer.digest(digest)
        writer.key("length"); writer.integer(length)
        writer.endObject()
    }

    public init(json reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) {
        var digest: SHA256Digest?, length: Int64?
        var fields = WireJSONFields()
        try reader.beginObject()
        while let key = try reader.nextKey() {
            switch key {
            case "digest": try fields.insert(0, reader); digest = try reader.digest()
            case "length": try fields.insert(1, reader); length = try reader.integer()
            default: throw reader.unexpected()
            }
        }
        guard let digest, let length else { throw reader.unexpected() }
        self.init(digest: digest, length: Int(length))
    }
}
