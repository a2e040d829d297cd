/// The id of a key-value store (SPEC §12), as an application names it: `org.example.editor`.
///
/// Ids are 1–200 bytes of ASCII letters, digits, `.`, `_` and `-`, starting with a letter or
/// a digit. A store lives in the zone `~ID` (`zone`): the `~` namespace is reserved for
/// key-value stores, and no folder id may start with `~` (`ZoneID.folderProblem(with:)`),
/// so a store and a folder never share a zone.
public struct KeyValueStoreID: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public let name: String

    /// The longest id, in bytes.
    public static let maximumLength = 200

    /// Accepts a valid store id, or throws `.invalidArguments` saying what is wrong.
    public init(validating name: String) throws(SyncError) {
        if let problem = KeyValueStoreID.problem(with: name) {
            throw SyncError(.invalidArguments, "store id \(name.debugDescription) \(problem)")
        }
        self.name = name
    }

    /// For ids known to be valid (literals in code and tests). Traps otherwise.
    public init(_ name: String) {
        precondition(KeyValueStoreID.problem(with: name) == nil, "invalid store id \(name.debugDescription)")
        self.name = name
    }

    /// The store of a key-value zone, `nil` for any other zone.
    public init?(zone: ZoneID) {
        guard zone.isKeyValueStore else { return nil }
        self.name = String(zone.name.dropFirst(ZoneID.keyValuePrefix.count))
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        if let problem = KeyValueStoreID.problem(with: name) {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "store id \(problem)")
        }
        self.name = name
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }

    /// The zone that holds the store: `~` and the id.
    public var zone: ZoneID { ZoneID(ZoneID.keyValuePrefix + name) }

    public var description: String { name }

    public static func < (lhs: KeyValueStoreID, rhs: KeyValueStoreID) -> Bool { lhs.name < rhs.name }

    /// Why `name` is not a valid store id, or `nil` when it is.
    public static func problem(with name: String) -> String? {
        if name.isEmpty { return "is empty" }
        if name.utf8.count > maximumLength { return "is longer than \(maximumLength) bytes" }
        for (index, byte) in name.utf8.enumerated() {
            let alphanumeric = (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte)
            if index == 0, !alphanumeric { return "must start with a letter or a digit" }
            if !alphanumeric, byte != UInt8(ascii: "."), byte != UInt8(ascii: "_"), byte != UInt8(ascii: "-") {
                return "may hold only ASCII letters, digits, '.', '_' and '-' (like org.example.editor)"
            }
        }
        return nil
    }
}
