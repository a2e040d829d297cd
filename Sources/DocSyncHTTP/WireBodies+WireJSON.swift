import DocSyncCore
import DocSyncStorage
import Foundation

/// The JSON of the bodies sent by the thousand — digest lists and modify answers — written
/// and read by hand (see `WireJSONCodable`).
extension WireBody.Digests: WireJSONCodable {
    public func writeJSON(to writer: inout WireJSONWriter) {
        writer.beginObject()
        writer.key("digests"); writer.array(digests)
        writer.endObject()
    }

    public init(json reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) {
        self.init(digests: try reader.onlyField("digests") { (reader) throws(WireJSONReader.Unexpected) in try reader.array(of: SHA256Digest.self) })
    }
}

extension WireBody.Missing: WireJSONCodable {
    public func writeJSON(to writer: inout WireJSONWriter) {
        writer.beginObject()
        writer.key("missing"); writer.array(missing)
        writer.endObject()
    }

    public init(json reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) {
        self.init(missing: try reader.onlyField("missing") { (reader) throws(WireJSONReader.Unexpected) in try reader.array(of: SHA256Digest.self) })
    }
}

/// A modify answer's failures are rare and carry errors of every shape: they are written by
/// `JSONEncoder` inside the hand-written answer, and an answer with any is read by `JSONDecoder`.
extension WireBody.ModifyAnswer: WireJSONCodable {
    public func writeJSON(to writer: inout WireJSONWriter) {
        writer.beginObject()
        writer.key("deleted"); writer.array(deleted)
        if let editor { writer.key("editor"); writer.string(editor) }
        writer.key("failed"); writer.failures(failed)
        writer.key("saved")
        writer.beginObject()
        for (name, tag) in saved.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            writer.key(name)
            writer.string(tag.rawValue)
        }
        writer.endObject()
        if let token { writer.key("token"); writer.token(token) }
        writer.endObject()
    }

    public init(json reader: inout WireJSONReader) throws(WireJSONReader.Unexpected) {
        var deleted: [String]?, saved: [String: ChangeTag]?, token: ChangeToken?, editor: String?, sawFailed = false
        var fields = WireJSONFields()
        try reader.beginObject()
        while let key = try reader.nextKey() {
            switch key {
            case "deleted": try fields.insert(0, reader); deleted = try reader.array(of: String.self)
            case "failed": try fields.insert(1, reader); try reader.noFailures(); sawFailed = true
            case "saved":
                try fields.insert(2, reader)
                var tags: [String: ChangeTag] = [:]
                try reader.beginObject()
                while let name = try reader.nextKey() {
                    guard let name = name.string, tags.updateValue(ChangeTag(try reader.string()), forKey: name) == nil else { throw reader.unexpected() }
                }
                saved = tags
            case "token": try fields.insert(3, reader); token = reader.null() ? nil : try reader.token()
            case "editor": try fields.insert(4, reader); editor = reader.null() ? nil : try reader.string()
            default: throw reader.unexpected()
            }
        }
        guard let deleted, let saved, sawFailed else { throw reader.unexpected() }
        self.init(saved: saved, deleted: deleted, token: token, editor: editor)
    }
}

/// The failures of an answer to a batch (modify, recover): rare and of every shape, so
/// written by `JSONEncoder` inside the hand-written answer, and read by the fast reader only
/// when there are none (an answer with any goes to `JSONDecoder`).
extension WireJSONWriter {
    mutating func failures(_ failed: [WireBody.ModifyAnswer.Failure]) {
        if failed.isEmpty {
            beginArray()
            endArray()
        } else {
            encoded(failed)
        }
    }
}

extension WireJSONReader {
    /// Reads an empty array; throws on any other value.
    mutating func noFailures() throws(WireJSONReader.Unexpected) {
        try beginArray()
        guard try !nextElement() else { throw unexpected() }
    }
}
