import Foundation

/// A position in one zone's change history, handed out by `fetchChanges`.
///
/// Opaque to everyone but the backend that made it: clients store it (as JSON, a base64
/// string) and hand it back to ask for what changed after it. A token from another zone,
/// from a zone that was deleted and recreated, or from before the backend compacted its
/// tombstones is refused with `changeTokenExpired`.
public struct ChangeToken: Hashable, Codable, Sendable, CustomStringConvertible {
    /// The backend's own encoding. Clients must not interpret it.
    public let opaqueValue: Data

    public init(opaqueValue: Data) { self.opaqueValue = opaqueValue }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let data = Data(base64Encoded: try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "change token is not base64")
        }
        opaqueValue = data
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(opaqueValue.base64EncodedString())
    }

    public var description: String { opaqueValue.base64EncodedString() }
}
