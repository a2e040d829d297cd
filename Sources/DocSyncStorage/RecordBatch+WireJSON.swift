import DocSyncCore

/// The JSON of a modify request, written and read by hand (see `WireJSONCodable`).
extension RecordBatch: WireJSONCodable {
    public func writeJSON(to writer: inout WireJSONWriter) {
        writer.beginObject()
        writer.key("atomic"); writer.bool(atomic)
        writer.key("deletions"); writer.array(deletions)
        if let knownToken { writer.key("knownToken"); writer.token(knownToken) }
        writer.key("saves"); writer.array(saves)
        writer.key("zone"); writer.string(zone.name)
        writer.endObject()
    }

    public init(json reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) {
        var atomic: Bool?, deletions: [RecordDeletion]?, knownToken: ChangeToken?, saves: [Record]?, zone: String?
        var fields = WireJSONFields()
        try reader.beginObject()
        while let key = try reader.nextKey() {
            switch key {
            case "atomic": try fields.insert(0, reader); atomic = try reader.bool()
            case "deletions": try fields.insert(1, reader); deletions = try reader.array(of: RecordDeletion.self)
            case "knownToken": try fields.insert(2, reader); knownToken = reader.null() ? nil : try reader.token()
            case "saves": try fields.insert(3, reader); saves = try reader.array(of: Record.self)
            case "zone": try fields.insert(4, reader); zone = try reader.string()
            default: throw reader.unexpected()
            }
        }
        guard let atomic, let deletions, let saves, let zone, let zoneID = try? ZoneID(validating: zone) else { throw reader.unexpected() }
        self.init(zone: zoneID, saves: saves, deletions: deletions, atomic: atomic, knownToken: knownToken)
    }
}

extension RecordDeletion: WireJSONCodable {
    public func writeJSON(to writer: inout WireJSONWriter) {
        writer.beginObject()
        if let baseTag { writer.key("baseTag"); writer.string(baseTag.rawValue) }
        if let device { writer.key("device"); writer.string(device) }
        writer.key("id"); id.writeJSON(to: &writer)
        writer.endObject()
    }

    public init(json reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) {
        var baseTag: ChangeTag?, device: String?, id: RecordID?
        var fields = WireJSONFields()
        try reader.beginObject()
        while let key = try reader.nextKey() {
            switch key {
            case "baseTag": try fields.insert(0, reader); baseTag = reader.null() ? nil : ChangeTag(try reader.string())
            case "device": try fields.insert(2, reader); device = reader.null() ? nil : try reader.string()
            case "id": try fields.insert(1, reader); id = try RecordID(json: &reader)
            default: throw reader.unexpected()
            }
        }
        guard let id else { throw reader.unexpected() }
        self.init(id: id, baseTag: baseTag, device: device)
    }
}
