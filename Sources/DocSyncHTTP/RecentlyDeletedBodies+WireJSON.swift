import DocSyncCore
import DocSyncStorage
import Foundation

/// The JSON of the Recently Deleted bodies that may carry hundreds of records, written and
/// read by hand (see `WireJSONCodable`).
extension WireBody.DeletedRecords: WireJSONCodable {
    public func writeJSON(to writer: inout WireJSONWriter) {
        writer.beginObject()
        writer.key("deleted"); writer.array(deleted)
        writer.endObject()
    }

    public init(json reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) {
        self.init(deleted: try reader.onlyField("deleted") { (reader) throws(WireJSONReader.Unexpected) in try reader.array(of: DeletedRecord.self) })
    }
}

extension WireBody.Recoveries: WireJSONCodable {
    public func writeJSON(to writer: inout WireJSONWriter) {
        writer.beginObject()
        writer.key("recoveries"); writer.array(recoveries)
        writer.endObject()
    }

    public init(json reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) {
        self.init(recoveries: try reader.onlyField("recoveries") { (reader) throws(WireJSONReader.Unexpected) in try reader.array(of: WireBody.Recovery.self) })
    }
}

extension WireBody.Recovery: WireJSONCodable {
    public func writeJSON(to writer: inout WireJSONWriter) {
        writer.beginObject()
        writer.key("device"); writer.string(device)
        writer.key("id"); id.writeJSON(to: &writer)
        if let path { writer.key("path"); writer.string(path) }
        writer.endObject()
    }

    public init(json reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) {
        var device: String?, id: RecordID?, path: String?
        var fields = WireJSONFields()
        try reader.beginObject()
        while let key = try reader.nextKey() {
            switch key {
            case "device": try fields.insert(0, reader); device = try reader.string()
            case "id": try fields.insert(1, reader); id = try RecordID(json: &reader)
            case "path": try fields.insert(2, reader); path = reader.null() ? nil : try reader.string()
            default: throw reader.unexpected()
            }
        }
        guard let device, let id else { throw reader.unexpected() }
        self.init(device: device, id: id, path: path)
    }
}

/// Its failures are written and read as a modify answer's are.
extension WireBody.RecoverAnswer: WireJSONCodable {
    public func writeJSON(to writer: inout WireJSONWriter) {
        writer.beginObject()
        writer.key("failed"); writer.failures(failed)
        writer.key("saved"); writer.array(saved)
        writer.endObject()
    }

    public init(json reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) {
        var saved: [Record]?, sawFailed = false
        var fields = WireJSONFields()
        try reader.beginObject()
        while let key = try reader.nextKey() {
            switch key {
            case "failed": try fields.insert(0, reader); try reader.noFailures(); sawFailed = true
            case "saved": try fields.insert(1, reader); saved = try reader.array(of: Record.self)
            default: throw reader.unexpected()
            }
        }
        guard let saved, sawFailed else { throw reader.unexpected() }
        self.init(saved: saved)
    }
}
