/// The version of a record as the backend last saved it.
///
/// Opaque: assigned by the backend on every save and only ever compared for equality.
/// A save names the tag it was based on; when the record has moved on since, the save
/// fails with `serverRecordChanged` carrying the server's current record.
public struct ChangeTag: Hashable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}
