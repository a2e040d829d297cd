/// The JSON of records, written and read by hand (see `WireJSONCodable`); the keys and
/// their order are those of the `Codable` conformances.
extension Record: WireJSONCodable {
    public func writeJSON(to writer: inout WireJSONWriter) {
        writer.beginObject()
        if let asset { writer.key("asset"); asset.writeJSON(to: &writer) }
        if let changeTag { writer.key("changeTag"); writer.string(changeTag.rawValue) }
        if let contentDigest { writer.key("contentDigest"); writer.digest(contentDigest) }
        writer.key("id"); id.writeJSON(to: &writer)
        writer.key("lastModifiedBy"); writer.string(lastModifiedBy)
        writer.key("mode"); writer.integer(Int64(mode))
        writer.key("modified"); writer.integer(modified.nanosecondsSince1970)
        writer.key("path"); writer.string(path.string)
        writer.key("size"); writer.integer(size)
        if let symlinkTarget { writer.key("symlinkTarget"); writer.string(symlinkTarget) }
        writer.key("type"); writer.string(type.rawValue)
        writer.endObject()
    }

    public init(json reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) {
        var asset: AssetReference?, changeTag: ChangeTag?, contentDigest: SHA256Digest?, id: RecordID?
        var lastModifiedBy: String?, mode: Int64?, modified: Int64?, path: String?, size: Int64?
        var symlinkTarget: String?, type: String?
        var fields = WireJSONFields()
        try reader.beginObject()
        while let key = try reader.nextKey() {
            switch key {
            case "asset": try fields.insert(0, reader); asset = reader.null() ? nil : try AssetReference(json: &reader)
            case "changeTag": try fields.insert(1, reader); changeTag = reader.null() ? nil : ChangeTag(try reader.string())
            case "contentDigest": try fields.insert(2, reader); contentDigest = reader.null() ? nil : try reader.digest()
            case "id": try fields.insert(3, reader); id = try RecordID(json: &reader)
            case "lastModifiedBy": try fields.insert(4, reader); lastModifiedBy = try reader.string()
            case "mode": try fields.insert(5, reader); mode = try reader.integer()
            case "modified": try fields.insert(6, reader); modified = try reader.integer()
            case "path": try fields.insert(7, reader); path = try reader.string()
            case "size": try fields.insert(8, reader); size = try reader.integer()
            case "symlinkTarget": try fields.insert(9, reader); symlinkTarget = reader.null() ? nil : try reader.string()
            case "type": try fields.insert(10, reader); type = try reader.string()
            default: throw reader.unexpected()
            }
        }
        guard let id, let lastModifiedBy, let mode, let modified, let path, let size, let type,
              let recordType = RecordType(rawValue: type), let mode = UInt32(exactly: mode),
              let relativePath = try? RelativePath(validating: path) else { throw reader.unexpected() }
        self.init(id: id, type: recordType, changeTag: changeTag, path: relativePath, size: size,
                  modified: Timestamp(nanosecondsSince1970: modified), mode: mode, contentDigest: contentDigest, asset: asset,
                  symlinkTarget: symlinkTarget, lastModifiedBy: lastModifiedBy)
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
