import DocSyncCore

/// The JSON of a Recently Deleted entry, written and read by hand (see `WireJSONCodable`):
/// a listing may hold thousands.
extension DeletedRecord: WireJSONCodable {
    public func writeJSON(to writer: inout WireJSONWriter) {
        writer.beginObject()
        writer.key("deletedAt"); writer.integer(deletedAt.nanosecondsSince1970)
        writer.key("deletedBy"); writer.string(deletedBy)
        writer.key("record"); record.writeJSON(to: &writer)
        writer.endObject()
    }

    public init(json reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) {
        var deletedAt: Int64?, deletedBy: String?, record: Record?
        var fields = WireJSONFields()
        try reader.beginObject()
        while let key = try reader.nextKey() {
            switch key {
            case "deletedAt": try fields.insert(0, reader); deletedAt = try reader.integer()
            case "deletedBy": try fields.insert(1, reader); deletedBy = try reader.string()
            case "record": try fields.insert(2, reader); record = try Record(json: &reader)
            default: throw reader.unexpected()
            }
        }
        guard let deletedAt, let deletedBy, let record else { throw reader.unexpected() }
        self.init(record: record, deletedAt: Timestamp(nanosecondsSince1970: deletedAt), deletedBy: deletedBy)
    }
}
