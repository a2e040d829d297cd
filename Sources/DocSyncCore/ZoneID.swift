/// A zone: one synced folder, named by the folder id of the configuration, or one
/// key-value store (SPEC §12).
///
/// Names are 1–255 bytes of UTF-8 made of letters, digits, `.`, `_`, `-` and spaces,
/// not starting with `.`; or, for a key-value store, `~` followed by the store's id
/// (`KeyValueStoreID`: ASCII letters, digits, `.`, `_`, `-`). `~` is in no folder id (the
/// daemon's configuration refuses one, `folderProblem(with:)`), so the `~` namespace is the
/// stores' alone and a store never takes a folder's zone. `ZoneID(validating:)` enforces
/// this so a zone name is always safe as a file name, a URL path segment and a SQL value. Zones are told apart, hashed and
/// ordered by the bytes of their names, as the stores compare them (a zone is named after a
/// folder, and names are bytes: SPEC §4a).
public struct ZoneID: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public let name: String

    /// Accepts a valid zone name, or throws `.invalidArguments` saying what is wrong.
    public init(validating name: String) throws(SyncError) {
        if let problem = ZoneID.problem(with: name) {
            throw SyncError(.invalidArguments, "zone name \(name.debugDescription) \(problem)")
        }
        self.name = name
    }

    /// For names known to be valid (literals in code and tests). Traps otherwise.
    public init(_ name: String) {
        precondition(ZoneID.problem(with: name) == nil, "invalid zone name \(name.debugDescription)")
        self.name = name
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        if let problem = ZoneID.problem(with: name) {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "zone name \(problem)")
        }
        self.name = name
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }

    public var description: String { name }

    public static func == (lhs: ZoneID, rhs: ZoneID) -> Bool { lhs.name.bytesEqual(rhs.name) }

    public func hash(into hasher: inout Hasher) { name.hashBytes(into: &hasher) }

    public static func < (lhs: ZoneID, rhs: ZoneID) -> Bool { lhs.name.bytesPrecede(rhs.name) }

    /// What starts the zone name of every key-value store, and no folder's.
    public static let keyValuePrefix = "~"

    /// Whether this zone is a key-value store's (`~ID`): it holds only `Value` records,
    /// and is never a folder or shared.
    public var isKeyValueStore: Bool { name.hasBytePrefix(ZoneID.keyValuePrefix) }

    /// Why `name` cannot be a folder's zone (a folder id), or `nil` when it can: a valid
    /// zone name outside the key-value stores' namespace.
    public static func folderProblem(with name: String) -> String? {
        if name.hasPrefix(keyValuePrefix) { return "starts with '~', which names key-value stores' zones; a folder id may not" }
        return problem(with: name)
    }

    /// Why `name` is not a valid zone name, or `nil` when it is.
    public static func problem(with name: String) -> String? {
        if name.hasPrefix(keyValuePrefix) {
            return KeyValueStoreID.problem(with: String(name.dropFirst(keyValuePrefix.count))).map { "is '~' and a store id that \($0)" }
        }
        if name.isEmpty { return "is empty" }
        if name.utf8.count > 255 { return "is longer than 255 bytes" }
        if name.hasPrefix(".") { return "starts with '.'" }
        for scalar in name.unicodeScalars {
            let ok = scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                || scalar == "." || scalar == "_" || scalar == "-" || scalar == " "
            if !ok { return "contains \(String(scalar).debugDescription); use letters, digits, '.', '_', '-' or spaces" }
        }
        return nil
    }
}
