import DocSyncCore

/// A changed record that was refused on arrival: what it claimed to be, and why.
public struct RefusedRecord: Hashable, Codable, Sendable {
    /// The record name it was sent under ("" when even that was unreadable).
    public var recordName: String
    /// The path it was sent with (possibly escaping the folder), for a person only: control
    /// characters such as NUL or a newline are written as `\u{…}`.
    public var path: String
    public var reason: String

    public init(recordName: String, path: String, reason: String) {
        self.recordName = recordName
        self.path = path
        self.reason = reason
    }
}

/// One element of a page's `changed` list: a valid record, or the refusal of an invalid one.
/// Decoding it never fails, so the list around it always decodes.
struct ArrivingRecord: Decodable {
    var record: Record?
    var refusal: RefusedRecord?

    /// What a refused record says of itself, read under the keys of `Record.Field`.
    private struct Claimed: Decodable {
        struct Identity: Decodable { var recordName: String? }
        var id: Identity?
        var path: String?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Record.Field.self)
            id = try? container.decodeIfPresent(Identity.self, forKey: .id)
            path = try? container.decodeIfPresent(String.self, forKey: .path)
        }
    }

    init(from decoder: any Decoder) throws {
        do {
            let record = try Record(from: decoder)
            try record.validate()
            self.record = record
        } catch {
            let claimed = try? Claimed(from: decoder)
            let reason: String
            switch error {
            case let error as SyncError: reason = error.message
            case DecodingError.dataCorrupted(let context): reason = context.debugDescription
            case DecodingError.keyNotFound(let key, _): reason = "no \(key.stringValue)"
            case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
                reason = "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
            default: reason = "\(error)"
            }
            refusal = RefusedRecord(recordName: claimed?.id?.recordName ?? "", path: Self.displayable(claimed?.path ?? ""), reason: reason)
        }
    }

    static func displayable(_ text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control {
                shown += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                shown.unicodeScalars.append(scalar)
            }
        }
        return shown
    }
}
