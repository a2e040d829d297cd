import DocSyncCore

/// The JSON of a page of changes, written and read by hand (see `WireJSONCodable`).
///
/// The reader takes only pages whose every record is valid: a page with a record to refuse
/// goes to `init(from:)`, which refuses it and keeps the rest.
extension ChangeSet: WireJSONCodable {
    public func writeJSON(to writer: inout WireJSONWriter) {
        writer.beginObject()
        writer.key("changed"); writer.array(changed)
        writer.key("deleted"); writer.array(deleted)
        writer.key("moreComing"); writer.bool(moreComing)
        if !refused.isEmpty { writer.key("refused"); writer.array(refused) }
        writer.key("token"); writer.token(token)
        writer.endObject()
    }

    public init(json reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) {
        var changed: [Record]?, deleted: [RecordID]?, moreComing: Bool?, refused: [RefusedRecord] = [], token: ChangeToken?
        var fields = WireJSONFields()
        try reader.beginObject()
        while let key = try reader.nextKey() {
            switch key {
            case "changed":
                try fields.insert(0, reader)
                let records = try reader.array(of: Record.self)
                for record in records { guard (try? record.validate()) != nil else { throw reader.unexpected() } }
                changed = records
            case "deleted": try fields.insert(1, reader); deleted = try reader.array(of: RecordID.self)
            case "moreComing": try fields.insert(2, reader); moreComing = try reader.bool()
            case "refused": try fields.insert(3, reader); refused = reader.null() ? [] : try reader.array(of: RefusedRecord.self)
            case "token": try fields.insert(4, reader); token = try reader.token()
            default: throw reader.unexpected()
            }
        }
        guard let changed, let deleted, let moreComing, let token else { throw reader.unexpected() }
        self.init(changed: changed, deleted: deleted, token: token, moreComing: moreComing, refused: refused)
    }
}

extension RefusedRecord: WireJSONCodable {
    public func writeJSON(to writer: inout WireJSONWriter) {
        writer.beginObject()
        writer.key("path"); writer.string(path)
        writer.key("reason"); writer.string(reason)
        writer.key("recordName"); writer.string(recordName)
        writer.endObject()
    }

    public init(json reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) {
        var path: String?, reason: String?, recordName: String?
        var fields = WireJSONFields()
        try reader.beginObject()
        while let key = try reader.nextKey() {
            switch key {
            case "path": try fields.insert(0, reader); path = try reader.string()
            case "reason": try fields.insert(1, reader); reason = try reader.string()
            case "recordName": try fields.insert(2, reader); recordName = try reader.string()
            default: throw reader.unexpected()
            }
        }
        guard let path, let reason, let recordName else { throw reader.unexpected() }
        self.init(recordName: recordName, path: path, reason: reason)
    }
}
