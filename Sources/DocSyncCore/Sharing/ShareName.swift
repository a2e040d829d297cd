/// A share as people and commands name it: `OWNER/FOLDER-ID`, the owner's account and the
/// zone it shares (SPEC §11). Neither part holds a `/`, so the first one splits them.
public struct ShareName: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public let owner: String
    public let zone: ZoneID

    public init(owner: String, zone: ZoneID) {
        self.owner = owner
        self.zone = zone
    }

    /// Reads `OWNER/FOLDER-ID`; throws `invalidArguments` saying what is wrong.
    public init(parsing text: String) throws(SyncError) {
        guard let slash = text.firstIndex(of: "/") else {
            throw SyncError(.invalidArguments, "\(text.debugDescription) is not a share; write OWNER/FOLDER-ID as `docs-status shares` lists it")
        }
        let owner = String(text[..<slash])
        guard !owner.isEmpty else {
            throw SyncError(.invalidArguments, "\(text.debugDescription) names no owner; write OWNER/FOLDER-ID as `docs-status shares` lists it")
        }
        self.init(owner: owner, zone: try ZoneID(validating: String(text[text.index(after: slash)...])))
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try ShareName(parsing: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.message)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    public var description: String { "\(owner)/\(zone.name)" }

    public static func < (lhs: ShareName, rhs: ShareName) -> Bool {
        lhs.owner == rhs.owner ? lhs.zone < rhs.zone : lhs.owner.utf8.lexicographicallyPrecedes(rhs.owner.utf8)
    }
}
