import Foundation

/// Rows written before the compact form existed held records and asset references as
/// `WireCoding` JSON. The stores' and the index's migrations rewrite such rows with these;
/// the compact decoders read nothing else.
extension CompactCoding {
    /// Whether stored bytes are a legacy JSON row (`{`, which never begins the compact form).
    public static func isLegacyJSON(_ data: Data) -> Bool { data.first == UInt8(ascii: "{") }

    /// The compact form of a record stored as `WireCoding` JSON. Throws when the text is not
    /// a valid record's JSON (a damaged row, which the caller leaves as it is).
    public static func recordFromLegacyJSON(_ json: Data) throws -> Data {
        encode(try WireCoding.decode(Record.self, from: json))
    }

    /// The compact form of an asset reference stored as `WireCoding` JSON; throws like
    /// `recordFromLegacyJSON`.
    public static func assetReferenceFromLegacyJSON(_ json: Data) throws -> Data {
        encode(try WireCoding.decode(AssetReference.self, from: json))
    }
}
